// D20 in the domain, over in-memory fakes of MemberStore and PasswordHasher: the refusal of an unknown email costs
// one password verification exactly like a wrong password; tokens reach the store only as digests; roles and limits.
import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Option, TestClock } from "effect"
import { Ledger, MemberStore, Members, PasswordHasher } from "../src/index.js"
import { commonPasswords, crypto, memoryStore } from "./fakes.js"

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex")

/** A MemberStore in memory. */
const memoryMembers = () => {
  const members = new Map<string, { member: MemberStore.Member; passwordHash: string }>()
  const invitations = new Map<string, MemberStore.Invitation>()
  const sessions = new Map<string, { memberId: string; createdAt: Date; lastSeenAt: Date; expiresAt: Date }>()
  const resets = new Map<string, MemberStore.PasswordReset>()
  const store = MemberStore.MemberStore.of({
    pendingInvitations: (accountId) =>
      Effect.sync(() =>
        [...invitations.values()]
          .filter((i) => i.accountId === accountId && Option.isNone(i.usedAt))
          .map((i) => ({ ...i, id: i.digest.slice(0, 16), createdAt: new Date(0) }))
      ),
    deleteInvitation: (digest) => Effect.sync(() => invitations.delete(digest)),
    insertReset: (r) => Effect.sync(() => void resets.set(r.digest, { ...r, usedAt: Option.none() })),
    findReset: (digest) => Effect.sync(() => Option.fromNullable(resets.get(digest))),
    useReset: (input) =>
      Effect.sync(() => {
        const r = resets.get(input.digest)
        if (!r || Option.isSome(r.usedAt) || r.expiresAt <= input.now) return Option.none()
        resets.set(r.digest, { ...r, usedAt: Option.some(input.now) })
        const m = members.get(r.memberId)
        if (!m) return Option.none()
        members.set(r.memberId, { ...m, passwordHash: input.passwordHash })
        for (const [d, s] of sessions) if (s.memberId === r.memberId) sessions.delete(d)
        return Option.some(m.member)
      }),
    insertInvitation: (i) => Effect.sync(() => void invitations.set(i.digest, { ...i, usedAt: Option.none() })),
    acceptInvitation: (input) =>
      Effect.sync(() => {
        const i = invitations.get(input.digest)
        if (!i || Option.isSome(i.usedAt) || i.expiresAt <= input.now) return Option.none()
        if ([...members.values()].some((m) => m.member.email === i.email)) return Option.none()
        invitations.set(i.digest, { ...i, usedAt: Option.some(input.now) })
        const member = new MemberStore.Member({
          id: input.memberId,
          accountId: i.accountId,
          email: i.email,
          role: i.role,
          createdAt: DateTime.unsafeMake(input.now)
        })
        members.set(member.id, { member, passwordHash: input.passwordHash })
        return Option.some(member)
      }),
    findInvitation: (digest) => Effect.sync(() => Option.fromNullable(invitations.get(digest))),
    findByEmail: (email) =>
      Effect.sync(() => Option.fromNullable([...members.values()].find((m) => m.member.email === email.toLowerCase()))),
    find: (id) => Effect.sync(() => Option.fromNullable(members.get(id)?.member)),
    list: (accountId) =>
      Effect.sync(() => [...members.values()].map((m) => m.member).filter((m) => m.accountId === accountId)),
    setRole: (id, role) =>
      Effect.sync(() => {
        const m = members.get(id)
        if (m) members.set(id, { ...m, member: new MemberStore.Member({ ...m.member, role }) })
        return m !== undefined
      }),
    setPassword: (id, passwordHash) =>
      Effect.sync(() => {
        const m = members.get(id)
        if (m) members.set(id, { ...m, passwordHash })
        for (const [d, s] of sessions) if (s.memberId === id) sessions.delete(d)
        return m !== undefined
      }),
    remove: (id) =>
      Effect.sync(() => {
        for (const [d, s] of sessions) if (s.memberId === id) sessions.delete(d)
        return members.delete(id)
      }),
    insertSession: (s) => Effect.sync(() => void sessions.set(s.digest, { ...s, lastSeenAt: s.createdAt })),
    findSession: (digest) =>
      Effect.sync(() => {
        const s = sessions.get(digest)
        const m = s && members.get(s.memberId)
        return s && m ? Option.some({ digest, member: m.member, ...s }) : Option.none()
      }),
    touchSession: (digest, at) =>
      Effect.sync(() => {
        const s = sessions.get(digest)
        if (s) s.lastSeenAt = at
      }),
    deleteSession: (digest) => Effect.sync(() => void sessions.delete(digest))
  })
  return { store, state: { members, invitations, sessions } }
}

/** A PasswordHasher that counts its verifications (the hash is not memory-hard: the adapter's job). */
const countingHasher = () => {
  const counts = { hash: 0, verify: 0 }
  const hasher = PasswordHasher.PasswordHasher.of({
    hash: (p) =>
      Effect.sync(() => {
        counts.hash++
        return `h:${sha256(p)}`
      }),
    verify: (h, p) =>
      Effect.sync(() => {
        counts.verify++
        return h === `h:${sha256(p)}`
      })
  })
  return { hasher, counts }
}

const setup = () => {
  const mem = memoryStore()
  const people = memoryMembers()
  const hashing = countingHasher()
  const layer = Members.Members.Default.pipe(
    Layer.provide(
      Layer.mergeAll(
        Layer.succeed(MemberStore.MemberStore, people.store),
        Layer.succeed(PasswordHasher.PasswordHasher, hashing.hasher),
        Layer.succeed(Ledger.Ledger, mem.ledger),
        commonPasswords,
        crypto
      )
    )
  )
  return { mem, people, hashing, layer }
}

describe("Members", () => {
  it.effect(
    "D20: an unknown email costs one memory-hard computation, like a wrong password, and gets the same refusal",
    () => {
      const t = setup()
      return Effect.gen(function* () {
        const members = yield* Members.Members
        const account = yield* t.mem.ledger.createAccount({ id: "acct_1", name: "a" })
        const invited = yield* members.invite({ accountId: account.id, email: "a@x.example", role: "owner" })
        yield* members.accept(invited.token, "a good password")
        // a verification and a hash cost the same (one scrypt): an unknown email hashes the password once, a wrong
        // password verifies once, and nothing is hashed ahead at start
        const work = () => t.hashing.counts.verify + t.hashing.counts.hash
        const before = work()
        const unknown = yield* Effect.flip(
          members.signIn({ email: "b@x.example", password: "whatever!!", address: "1" })
        )
        assert.strictEqual(work() - before, 1)
        const wrong = yield* Effect.flip(members.signIn({ email: "a@x.example", password: "whatever!!", address: "2" }))
        assert.strictEqual(work() - before, 2)
        assert.deepStrictEqual([unknown._tag, unknown.message], [wrong._tag, wrong.message])
        assert.strictEqual(unknown._tag, "SignInRefused")
      }).pipe(Effect.provide(t.layer))
    }
  )

  it.effect("D20: invitation and session tokens reach the store only as their SHA-256 digests", () => {
    const t = setup()
    return Effect.gen(function* () {
      const members = yield* Members.Members
      yield* t.mem.ledger.createAccount({ id: "acct_2", name: "b" })
      const invited = yield* members.invite({ accountId: "acct_2", email: "c@x.example", role: "member" })
      assert.deepStrictEqual([...t.people.state.invitations.keys()], [sha256(invited.token)])
      yield* members.accept(invited.token, "a good password")
      const s = yield* members.signIn({ email: "c@x.example", password: "a good password", address: "1" })
      assert.deepStrictEqual([...t.people.state.sessions.keys()], [sha256(s.token)])
      const stored = JSON.stringify([...t.people.state.members.values()])
      assert.notInclude(stored, "a good password")
      assert.strictEqual(leftOf(yield* Effect.either(members.authenticate("ses_short"))), "SessionInvalid")
    }).pipe(Effect.provide(t.layer))
  })

  it.effect("D20: 10 failed sign-ins from one address (any emails) block it; another address still signs in", () => {
    const t = setup()
    return Effect.gen(function* () {
      const members = yield* Members.Members
      yield* t.mem.ledger.createAccount({ id: "acct_4", name: "d" })
      const invited = yield* members.invite({ accountId: "acct_4", email: "r@x.example", role: "owner" })
      yield* members.accept(invited.token, "a good password")
      for (let i = 0; i < 10; i++) {
        const e = yield* Effect.flip(members.signIn({ email: `n${i}@x.example`, password: "nope nope!", address: "9" }))
        assert.strictEqual(e._tag, "SignInRefused")
      }
      const blocked = yield* Effect.flip(
        members.signIn({ email: "r@x.example", password: "a good password", address: "9" })
      )
      assert.strictEqual(blocked._tag, "SignInLimited")
      const other = yield* members.signIn({ email: "r@x.example", password: "a good password", address: "8" })
      assert.strictEqual(other.member.email, "r@x.example")
    }).pipe(Effect.provide(t.layer))
  })

  it.effect(
    "issue 24: 5 failures for an email from one address do not lock out that email from another address",
    () => {
      const t = setup()
      return Effect.gen(function* () {
        const members = yield* Members.Members
        yield* t.mem.ledger.createAccount({ id: "acct_5", name: "e" })
        yield* members.accept(
          (yield* members.invite({ accountId: "acct_5", email: "boss@x.example", role: "owner" })).token,
          "a good password"
        )
        for (let i = 0; i < 5; i++) {
          const e = yield* Effect.flip(
            members.signIn({ email: "boss@x.example", password: "nope nope!", address: "6" })
          )
          assert.strictEqual(e._tag, "SignInRefused")
        }
        const blocked = yield* Effect.flip(
          members.signIn({ email: "boss@x.example", password: "a good password", address: "6" })
        )
        assert.strictEqual(blocked._tag, "SignInLimited")
        assert.match(blocked.message, /try again in \d+ seconds/)
        const owner = yield* members.signIn({ email: "boss@x.example", password: "a good password", address: "7" })
        assert.strictEqual(owner.member.email, "boss@x.example")
      }).pipe(Effect.provide(t.layer))
    }
  )

  it.effect("issue 24: a common password is refused with why; re-inviting a member says so", () => {
    const t = setup()
    return Effect.gen(function* () {
      const members = yield* Members.Members
      yield* t.mem.ledger.createAccount({ id: "acct_6", name: "f" })
      const invited = yield* members.invite({ accountId: "acct_6", email: "p@x.example", role: "owner" })
      const weak = yield* Effect.flip(members.accept(invited.token, "Password123"))
      assert.strictEqual(weak._tag, "InvalidInput")
      assert.include(weak.message, "common passwords")
      yield* members.accept(invited.token, "a good password")
      const again = yield* Effect.flip(members.invite({ accountId: "acct_6", email: "P@x.example", role: "member" }))
      assert.strictEqual(again._tag, "AlreadyMember")
    }).pipe(Effect.provide(t.layer))
  })

  it.effect(
    "issue 24: a reset link works once, ends every session, and an unknown, used or expired one is refused alike",
    () => {
      const t = setup()
      return Effect.gen(function* () {
        const members = yield* Members.Members
        yield* t.mem.ledger.createAccount({ id: "acct_7", name: "g" })
        const owner = yield* members.accept(
          (yield* members.invite({ accountId: "acct_7", email: "o7@x.example", role: "owner" })).token,
          "a good password"
        )
        const worker = yield* members.accept(
          (yield* members.inviteAs(owner, "w7@x.example", "member")).token,
          "a good password"
        )
        const session = yield* members.signIn({ email: "w7@x.example", password: "a good password", address: "1" })
        assert.strictEqual(leftOf(yield* Effect.either(members.issueResetAs(worker, owner.id))), "Forbidden")
        const reset = yield* members.issueResetAs(owner, worker.id)
        assert.isFalse([...t.people.state.members.values()].some((m) => JSON.stringify(m).includes(reset.token)))
        yield* members.resetPassword(reset.token, "a brand new password")
        assert.strictEqual(leftOf(yield* Effect.either(members.authenticate(session.token))), "SessionInvalid")
        const used = yield* Effect.flip(members.resetPassword(reset.token, "another new password"))
        const unknown = yield* Effect.flip(members.resetPassword(`rst_${"a".repeat(32)}`, "another new password"))
        const expiring = yield* members.issueResetAs(owner, worker.id)
        yield* TestClock.adjust("61 minutes")
        const expired = yield* Effect.flip(members.resetPassword(expiring.token, "another new password"))
        assert.deepStrictEqual(
          [used.message, unknown.message, expired.message],
          [used.message, used.message, used.message]
        )
        assert.strictEqual(used._tag, "ResetInvalid")
        const again = yield* members.signIn({ email: "w7@x.example", password: "a brand new password", address: "1" })
        assert.strictEqual(again.member.id, worker.id)
      }).pipe(Effect.provide(t.layer))
    }
  )

  it.effect("D20: an account keeps at least one owner; only owners change roles", () => {
    const t = setup()
    return Effect.gen(function* () {
      const members = yield* Members.Members
      yield* t.mem.ledger.createAccount({ id: "acct_3", name: "c" })
      const owner = yield* members.accept(
        (yield* members.invite({ accountId: "acct_3", email: "o@x.example", role: "owner" })).token,
        "a good password"
      )
      const member = yield* members.accept(
        (yield* members.inviteAs(owner, "m@x.example", "member")).token,
        "a good password"
      )
      assert.strictEqual(leftOf(yield* Effect.either(members.changeRole(owner, owner.id, "member"))), "Forbidden")
      assert.strictEqual(leftOf(yield* Effect.either(members.changeRole(member, member.id, "owner"))), "Forbidden")
      yield* members.changeRole(owner, member.id, "owner")
      yield* members.changeRole(owner, owner.id, "member")
      assert.deepStrictEqual(
        (yield* members.list("acct_3")).map((m) => [m.email, m.role]),
        [
          ["o@x.example", "member"],
          ["m@x.example", "owner"]
        ]
      )
    }).pipe(Effect.provide(t.layer))
  })
})

const leftOf = <E extends { _tag: string }>(e: { _tag: "Left"; left: E } | { _tag: "Right" }) =>
  e._tag === "Left" ? e.left._tag : "Right"
