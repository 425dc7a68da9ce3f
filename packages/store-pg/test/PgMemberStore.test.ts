// D20: members, invitations and sessions on PostgreSQL and on the embedded default, through the Members service:
// one-time invitations, digests only, idle and absolute expiry, password change and removal ending sessions,
// sign-in failures that never say whether the email exists, and the daily usage written by the key usage flush.
import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Accounts, AuditLog, CommonPasswords, KeySpend, Keys, Ledger, Members, UsageReports } from "@pdr/domain"
import { Duration, Effect, Either, Layer, type Scope, TestClock } from "effect"
import {
  type Database,
  NodePasswordHasher,
  PgAuditLog,
  PgKeySpend,
  PgMemberStore,
  PgUsageReports
} from "../src/index.js"
import * as Testing from "../src/Testing.js"
import { services } from "./layers.js"

const targets = await Testing.targets()
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex")
const start = Date.parse("2026-11-21T12:00:00Z")
const password = "correct horse battery"

const commonPasswords = Layer.succeed(CommonPasswords.CommonPasswords, {
  includes: (p) => Effect.succeed(p.toLowerCase() === "password123")
})

const memberServices = (target: Effect.Effect<Database.Target, never, Scope.Scope>) =>
  Members.Members.Default.pipe(
    Layer.provide(
      Layer.mergeAll(
        PgMemberStore.layer,
        NodePasswordHasher.layer({ logN: 10, r: 8, p: 1, concurrency: 2 }),
        commonPasswords
      )
    ),
    Layer.provideMerge(Layer.mergeAll(PgAuditLog.layer, PgKeySpend.layer)),
    Layer.provideMerge(PgUsageReports.layer),
    Layer.provideMerge(services(target))
  )

const leftTag = <E extends { _tag: string }>(e: Either.Either<unknown, E>) => (Either.isLeft(e) ? e.left._tag : "Right")

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Members on ${t.name}`, () => {
    layer(memberServices(t.target), { timeout: "60 seconds" })((it) => {
      it.effect("D20: an invitation is used once; only digests of its token and of session tokens are stored", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const members = yield* Members.Members
          const sql = yield* SqlClient.SqlClient
          const account = yield* accounts.create({ name: "people" })
          const invited = yield* members.invite({ accountId: account.id, email: " Ann@Example.com ", role: "owner" })
          assert.strictEqual(invited.email, "ann@example.com")
          const member = yield* members.accept(invited.token, password)
          assert.deepStrictEqual(
            [member.email, member.role, member.accountId],
            ["ann@example.com", "owner", account.id]
          )
          assert.strictEqual(
            leftTag(yield* Effect.either(members.accept(invited.token, password))),
            "InvitationInvalid"
          )
          const signedIn = yield* members.signIn({ email: "ANN@example.com", password, address: "a1" })
          assert.match(signedIn.token, /^ses_[0-9A-Za-z]{43}$/)
          const dump = JSON.stringify([
            yield* sql`SELECT * FROM members`,
            yield* sql`SELECT * FROM invitations`,
            yield* sql`SELECT * FROM sessions`
          ])
          for (const secret of [password, invited.token, signedIn.token]) assert.notInclude(dump, secret)
          assert.include(dump, sha256(invited.token))
          assert.include(dump, sha256(signedIn.token))
          const s = yield* members.authenticate(signedIn.token)
          assert.strictEqual(s.member.id, member.id)
          assert.strictEqual(s.csrf, sha256(`csrf\n${signedIn.token}`))
        })
      )

      it.effect("D20: an expired invitation is refused", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const members = yield* Members.Members
          const account = yield* accounts.create({ name: "late" })
          const invited = yield* members.invite({ accountId: account.id, email: "late@example.com", role: "member" })
          yield* TestClock.adjust(Duration.days(8))
          assert.strictEqual(
            leftTag(yield* Effect.either(members.accept(invited.token, password))),
            "InvitationInvalid"
          )
        })
      )

      it.effect(
        "D20, issue 24: an unknown email and a wrong password get the same refusal; failures are limited per email and address",
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(start)
            const accounts = yield* Accounts.Accounts
            const members = yield* Members.Members
            const account = yield* accounts.create({ name: "limits" })
            const invited = yield* members.invite({ accountId: account.id, email: "bo@example.com", role: "member" })
            yield* members.accept(invited.token, password)
            const unknown = yield* Effect.flip(members.signIn({ email: "nobody@example.com", password, address: "x1" }))
            const wrong = yield* Effect.flip(
              members.signIn({ email: "bo@example.com", password: "wrong pass!", address: "x2" })
            )
            assert.deepStrictEqual([unknown._tag, unknown.message], [wrong._tag, wrong.message])
            for (let i = 0; i < 5; i++) {
              yield* Effect.flip(members.signIn({ email: "bo@example.com", password: "wrong pass!", address: "y" }))
            }
            // five failures for this email from one address: even the right password is refused there for a while
            const limited = yield* Effect.flip(members.signIn({ email: "bo@example.com", password, address: "y" }))
            assert.strictEqual(limited._tag, "SignInLimited")
            // but not from an address that has not failed (issue 24)
            const elsewhere = yield* members.signIn({ email: "bo@example.com", password, address: "z" })
            assert.strictEqual(elsewhere.member.email, "bo@example.com")
            yield* TestClock.adjust(Duration.minutes(2))
            const ok = yield* members.signIn({ email: "bo@example.com", password, address: "y" })
            assert.strictEqual(ok.member.email, "bo@example.com")
          })
      )

      it.effect(
        "issue 24: a reset link is stored as a digest, works once, ends every session; pending invitations are listed and cancelled",
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(start)
            const accounts = yield* Accounts.Accounts
            const members = yield* Members.Members
            const sql = yield* SqlClient.SqlClient
            const account = yield* accounts.create({ name: "resets" })
            const owner = yield* members.accept(
              (yield* members.invite({ accountId: account.id, email: "reo@example.com", role: "owner" })).token,
              password
            )
            const pending = yield* members.inviteAs(owner, "pen@example.com", "member")
            assert.deepStrictEqual(
              (yield* members.pendingInvitations(account.id)).map((i) => i.email),
              ["pen@example.com"]
            )
            const [listed] = yield* members.pendingInvitations(account.id)
            yield* members.cancelInvitation(owner, listed!.id)
            assert.deepStrictEqual(yield* members.pendingInvitations(account.id), [])
            assert.strictEqual(
              leftTag(yield* Effect.either(members.accept(pending.token, password))),
              "InvitationInvalid"
            )
            const session = yield* members.signIn({ email: "reo@example.com", password, address: "r" })
            const reset = yield* members.issueResetByEmail("REO@example.com")
            const stored = JSON.stringify(yield* sql`SELECT * FROM password_resets`)
            assert.notInclude(stored, reset.token)
            assert.include(stored, sha256(reset.token))
            yield* members.resetPassword(reset.token, "a new long password")
            assert.strictEqual(leftTag(yield* Effect.either(members.authenticate(session.token))), "SessionInvalid")
            assert.strictEqual(
              leftTag(yield* Effect.either(members.resetPassword(reset.token, "another long password"))),
              "ResetInvalid"
            )
            const again = yield* members.signIn({
              email: "reo@example.com",
              password: "a new long password",
              address: "r"
            })
            assert.strictEqual(again.member.id, owner.id)
          })
      )

      it.effect(
        "issue 24: the audit log refuses updates and early deletes; a key's spend counts this month's captures and its holds",
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(start)
            const accounts = yield* Accounts.Accounts
            const keys = yield* Keys.Keys
            const sql = yield* SqlClient.SqlClient
            const log = yield* AuditLog.AuditLog
            const spend = yield* KeySpend.KeySpend
            const ledger = yield* Ledger.Ledger
            const account = yield* accounts.create({ name: "audit", credits: 100 })
            yield* log.append({
              accountId: account.id,
              at: new Date(start),
              actor: "a@example.com",
              address: "127.0.0.1",
              action: "key created",
              subject: "k"
            })
            assert.strictEqual((yield* log.page(account.id, undefined, 10)).length, 1)
            const update = yield* Effect.either(sql`UPDATE audit_log SET actor = 'someone else'`)
            const remove = yield* Effect.either(sql`DELETE FROM audit_log`)
            assert.deepStrictEqual([update._tag, remove._tag], ["Left", "Left"])
            assert.strictEqual(yield* log.purge(new Date(start)), 0)
            assert.strictEqual((yield* log.page(account.id, undefined, 10)).length, 1)
            const key = yield* keys.create({ accountId: account.id, name: "spender" })
            const hold = yield* ledger.placeHold({
              id: "hold_spend_1",
              accountId: account.id,
              keyId: key.stored.id,
              amount: 7,
              expiresAt: new Date(Date.now() + 60_000)
            })
            assert.strictEqual(yield* spend.spentSince(key.stored.id, new Date(0)), 7)
            yield* ledger.release(hold.id)
            assert.strictEqual(yield* spend.spentSince(key.stored.id, new Date(0)), 0)
          })
      )

      it.effect("D20: sessions end after the idle timeout, after the absolute timeout, on sign-out", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const members = yield* Members.Members
          const account = yield* accounts.create({ name: "sessions" })
          const invited = yield* members.invite({ accountId: account.id, email: "cy@example.com", role: "member" })
          yield* members.accept(invited.token, password)
          const idle = yield* members.signIn({ email: "cy@example.com", password, address: "s" })
          yield* TestClock.adjust(Duration.minutes(119))
          yield* members.authenticate(idle.token)
          yield* TestClock.adjust(Duration.minutes(119))
          yield* members.authenticate(idle.token)
          yield* TestClock.adjust(Duration.minutes(121))
          assert.strictEqual(leftTag(yield* Effect.either(members.authenticate(idle.token))), "SessionInvalid")
          const busy = yield* members.signIn({ email: "cy@example.com", password, address: "s" })
          // used every 59 minutes (never idle) for 11 h 48 min, then 13 minutes later: past the 12 h absolute expiry
          for (let i = 0; i < 12; i++) {
            yield* TestClock.adjust(Duration.minutes(59))
            yield* members.authenticate(busy.token)
          }
          yield* TestClock.adjust(Duration.minutes(13))
          assert.strictEqual(leftTag(yield* Effect.either(members.authenticate(busy.token))), "SessionInvalid")
          const out = yield* members.signIn({ email: "cy@example.com", password, address: "s" })
          yield* members.signOut(out.token)
          assert.strictEqual(leftTag(yield* Effect.either(members.authenticate(out.token))), "SessionInvalid")
        })
      )

      it.effect("D20: a password change and a removal end every session of that member; members cannot manage", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const members = yield* Members.Members
          const account = yield* accounts.create({ name: "owners" })
          const ownerInvite = yield* members.invite({ accountId: account.id, email: "own@example.com", role: "owner" })
          const owner = yield* members.accept(ownerInvite.token, password)
          const memberInvite = yield* members.inviteAs(owner, "mem@example.com", "member")
          const member = yield* members.accept(memberInvite.token, password)
          const a = yield* members.signIn({ email: "mem@example.com", password, address: "p" })
          const b = yield* members.signIn({ email: "mem@example.com", password, address: "p" })
          yield* members.changePassword(member.id, password, "another long password")
          for (const s of [a, b]) {
            assert.strictEqual(leftTag(yield* Effect.either(members.authenticate(s.token))), "SessionInvalid")
          }
          assert.strictEqual(
            leftTag(yield* Effect.either(members.inviteAs(member, "x@example.com", "member"))),
            "Forbidden"
          )
          assert.strictEqual(leftTag(yield* Effect.either(members.remove(member, owner.id))), "Forbidden")
          assert.strictEqual(leftTag(yield* Effect.either(members.remove(owner, owner.id))), "Forbidden")
          const c = yield* members.signIn({ email: "mem@example.com", password: "another long password", address: "p" })
          yield* members.remove(owner, member.id)
          assert.strictEqual(leftTag(yield* Effect.either(members.authenticate(c.token))), "SessionInvalid")
          assert.deepStrictEqual(
            (yield* members.list(account.id)).map((m) => m.email),
            ["own@example.com"]
          )
        })
      )

      it.effect(
        "D20: usage joins the flushed call counts with the ledger's captures; the ledger pages newest first",
        () =>
          Effect.gen(function* () {
            // calls are dated by the service's clock, captures by the database's: both now
            yield* TestClock.setTime(Date.now())
            const accounts = yield* Accounts.Accounts
            const keys = yield* Keys.Keys
            const ledger = yield* Ledger.Ledger
            const reports = yield* UsageReports.UsageReports
            const account = yield* accounts.create({ name: "reports", credits: 100 })
            const { stored } = yield* keys.create({ accountId: account.id, name: "r" })
            const empty = { measurements: [], points: [], reveals: [] }
            for (const [id, capture] of [
              ["hold_r1", 3],
              ["hold_r2", 4]
            ] as const) {
              yield* ledger.placeHold({
                id,
                accountId: account.id,
                keyId: stored.id,
                amount: 5,
                expiresAt: new Date(Date.now() + 60_000)
              })
              yield* ledger.settle({
                holdId: id,
                accountId: account.id,
                capture,
                reason: "maps places",
                records: empty
              })
              yield* keys.recordOp(stored.id, "maps", "places")
            }
            yield* keys.recordOp(stored.id, "maps", "reviews")
            yield* keys.flushUsage()
            const today = new Date().toISOString().slice(0, 10)
            const rows = yield* reports.usage(account.id, today)
            assert.deepStrictEqual(
              rows.map((r) => [r.keyId, r.platform, r.op, r.calls, r.credits]),
              [
                [stored.id, "maps", "places", 2, 7],
                [stored.id, "maps", "reviews", 1, 0]
              ]
            )
            for (let i = 0; i < 4; i++) yield* accounts.grant({ accountId: account.id, credits: 1, reason: `g${i}` })
            const first = yield* reports.ledgerPage(account.id, undefined, 3)
            assert.deepStrictEqual(
              first.map((e) => e.reason),
              ["g3", "g2", "g1"]
            )
            const second = yield* reports.ledgerPage(account.id, first[2]!.id, 3)
            assert.deepStrictEqual(
              second.map((e) => [e.kind, e.reason]),
              [
                ["grant", "g0"],
                ["capture", "maps places"],
                ["capture", "maps places"]
              ]
            )
          })
      )

      it.effect("D20: op calls are counted per key, day, platform and op by the usage flush", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const keys = yield* Keys.Keys
          const sql = yield* SqlClient.SqlClient
          const account = yield* accounts.create({ name: "usage" })
          const { stored } = yield* keys.create({ accountId: account.id, name: "u" })
          for (let i = 0; i < 3; i++) yield* keys.recordOp(stored.id, "maps", "places")
          yield* keys.recordOp(stored.id, "maps", "reviews")
          yield* keys.flushUsage()
          yield* keys.recordOp(stored.id, "maps", "places")
          yield* keys.flushUsage()
          const rows = yield* sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, platform, op, calls::int AS calls
            FROM key_usage_daily WHERE key_id = ${stored.id} ORDER BY op`
          assert.deepStrictEqual(
            rows.map((r) => [r["day"], r["platform"], r["op"], r["calls"]]),
            [
              ["2026-11-21", "maps", "places", 4],
              ["2026-11-21", "maps", "reviews", 1]
            ]
          )
        })
      )
    })
  })
}
