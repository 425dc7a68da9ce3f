/**
 * Members and sessions of an account (D20): one-time invitations, memory-hard passwords, server-side sessions with
 * idle and absolute expiry, sign-in failures limited per address and per email and never saying whether the email
 * exists, owners managing members. Tokens (invitations, sessions) are only ever stored as SHA-256 digests.
 */
import { Context, DateTime, Duration, Effect, Option, Schema } from "effect"
import * as Ids from "./Ids.js"
import { InvalidInput } from "./Keys.js"
import { Crypto } from "./ports/Crypto.js"
import { AccountNotFound, Ledger } from "./ports/Ledger.js"
import { type Member, MemberStore, type Role } from "./ports/MemberStore.js"
import { PasswordHasher } from "./ports/PasswordHasher.js"
import * as RateLimits from "./RateLimits.js"

/** 401: the email or the password is wrong (which one is never told). */
export class SignInRefused extends Schema.TaggedError<SignInRefused>()("SignInRefused", {}) {
  override get message() {
    return "The email or the password is wrong."
  }
}

/** 429: too many failed sign-ins from this address or for this email. */
export class SignInLimited extends Schema.TaggedError<SignInLimited>()("SignInLimited", {
  retryAfterSeconds: Schema.Number
}) {
  override get message() {
    return "Too many failed sign-ins; try again later."
  }
}

/** The invitation token is unknown, used or expired, or its email already belongs to a member. */
export class InvitationInvalid extends Schema.TaggedError<InvitationInvalid>()("InvitationInvalid", {}) {
  override get message() {
    return "This sign-up link is invalid, used or expired; ask an owner for a new one."
  }
}

/** No valid session: missing, unknown, signed out, idle too long or past its absolute expiry. */
export class SessionInvalid extends Schema.TaggedError<SessionInvalid>()("SessionInvalid", {}) {
  override get message() {
    return "Sign in to continue."
  }
}

/** 403: the signed-in member may not do this (only owners manage members). */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {}

/** No member with this id in the account. */
export class MemberNotFound extends Schema.TaggedError<MemberNotFound>()("MemberNotFound", {
  memberId: Schema.String
}) {
  override get message() {
    return `no member ${this.memberId}`
  }
}

/** Session and invitation lifetimes and the sign-in failure limits. */
export class MemberSettings extends Context.Reference<MemberSettings>()("@pdr/domain/MemberSettings", {
  defaultValue: () => ({
    /** A session unused this long ends. */
    idleTimeout: Duration.hours(2) as Duration.Duration,
    /** A session ends this long after sign-in whatever its use. */
    absoluteTimeout: Duration.hours(12) as Duration.Duration,
    /** An invitation link is valid this long. */
    invitationTtl: Duration.days(7) as Duration.Duration,
    /** Failed sign-ins per client address: a burst, then a slow refill. */
    failedPerAddress: { name: "signin-address", perSecond: 0.1, burst: 10 } as RateLimits.Policy,
    /** Failed sign-ins per email. */
    failedPerEmail: { name: "signin-email", perSecond: 0.02, burst: 5 } as RateLimits.Policy
  })
}) {}

/** The signed-in member of a request, with the CSRF token of their session. */
export interface SignedIn {
  readonly member: Member
  readonly sessionDigest: string
  readonly csrf: string
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** The email trimmed and lower-cased, or an InvalidInput. */
export const normalizeEmail = (email: string) => {
  const e = email.trim().toLowerCase()
  return e.length > 254 || !emailPattern.test(e)
    ? Effect.fail(new InvalidInput({ field: "email", message: "must be an email address" }))
    : Effect.succeed(e)
}

/** Passwords of 10 to 200 characters. */
export const checkPassword = (password: string) =>
  password.length < 10 || password.length > 200
    ? Effect.fail(new InvalidInput({ field: "password", message: "must be 10 to 200 characters" }))
    : Effect.void

const later = (now: DateTime.Utc, d: Duration.Duration) => new Date(DateTime.toEpochMillis(now) + Duration.toMillis(d))

/** Members, invitations and sessions over the MemberStore, PasswordHasher, Crypto and Ledger ports. */
export class Members extends Effect.Service<Members>()("@pdr/domain/Members", {
  effect: Effect.gen(function* () {
    const store = yield* MemberStore
    const hasher = yield* PasswordHasher
    const crypto = yield* Crypto
    const ledger = yield* Ledger
    const settings = yield* MemberSettings
    const byAddress = RateLimits.buckets(settings.failedPerAddress)
    const byEmail = RateLimits.buckets(settings.failedPerEmail)

    const invite = Effect.fn("Members.invite")(function* (input: {
      readonly accountId: string
      readonly email: string
      readonly role: Role
    }) {
      const email = yield* normalizeEmail(input.email)
      if (Option.isNone(yield* ledger.findAccount(input.accountId))) {
        return yield* new AccountNotFound({ accountId: input.accountId })
      }
      const token = `inv_${yield* Ids.base62(crypto, 32)}`
      const now = yield* DateTime.now
      const expiresAt = later(now, settings.invitationTtl)
      yield* store.insertInvitation({
        digest: yield* crypto.sha256(token),
        accountId: input.accountId,
        email,
        role: input.role,
        expiresAt
      })
      return { token, email, role: input.role, expiresAt }
    })

    const validInvitation = Effect.fn("Members.invitation")(function* (token: string) {
      const found = yield* store.findInvitation(yield* crypto.sha256(token))
      const now = yield* DateTime.now
      if (
        Option.isNone(found) ||
        Option.isSome(found.value.usedAt) ||
        found.value.expiresAt.getTime() <= DateTime.toEpochMillis(now)
      ) {
        return yield* new InvitationInvalid()
      }
      return found.value
    })

    const accept = Effect.fn("Members.accept")(function* (token: string, password: string) {
      const invitation = yield* validInvitation(token)
      yield* checkPassword(password)
      const passwordHash = yield* hasher.hash(password)
      const now = yield* DateTime.now
      const member = yield* store.acceptInvitation({
        digest: invitation.digest,
        memberId: yield* Ids.make(crypto, "mem"),
        passwordHash,
        now: DateTime.toDate(now)
      })
      if (Option.isNone(member)) return yield* new InvitationInvalid()
      return member.value
    })

    const startSession = Effect.fn("Members.startSession")(function* (member: Member) {
      const token = `ses_${yield* Ids.base62(crypto, 43)}`
      const now = yield* DateTime.now
      yield* store.insertSession({
        digest: yield* crypto.sha256(token),
        memberId: member.id,
        createdAt: DateTime.toDate(now),
        expiresAt: later(now, settings.absoluteTimeout)
      })
      return { token, member }
    })

    const signIn = Effect.fn("Members.signIn")(function* (input: {
      readonly email: string
      readonly password: string
      readonly address: string
    }) {
      const email = input.email.trim().toLowerCase()
      const gates = [yield* byAddress.peek(input.address), yield* byEmail.peek(email)]
      const blocked = gates.find((g) => !g.allowed)
      if (blocked !== undefined) {
        return yield* new SignInLimited({ retryAfterSeconds: Math.max(1, blocked.resetSeconds) })
      }
      const found = yield* store.findByEmail(email)
      const ok = Option.isSome(found)
        ? yield* hasher.verify(found.value.passwordHash, input.password)
        : // an unknown email hashes the password once (a fresh salt, the same cost as a verification) and discards it,
          // so it costs what a wrong password costs; no hash is kept ahead (one scrypt holds 128 MiB while it runs)
          yield* hasher.hash(input.password).pipe(Effect.as(false))
      if (!ok || Option.isNone(found)) {
        yield* byAddress.take(input.address)
        yield* byEmail.take(email)
        return yield* new SignInRefused()
      }
      return yield* startSession(found.value.member)
    })

    const csrfOf = (token: string) => crypto.sha256(`csrf\n${token}`)

    const authenticate = Effect.fn("Members.authenticate")(function* (token: string | undefined) {
      if (token === undefined || !/^ses_[0-9A-Za-z]{43}$/.test(token)) return yield* new SessionInvalid()
      const digest = yield* crypto.sha256(token)
      const found = yield* store.findSession(digest)
      if (Option.isNone(found)) return yield* new SessionInvalid()
      const session = found.value
      const now = DateTime.toEpochMillis(yield* DateTime.now)
      if (
        session.expiresAt.getTime() <= now ||
        session.lastSeenAt.getTime() + Duration.toMillis(settings.idleTimeout) <= now
      ) {
        yield* store.deleteSession(digest)
        return yield* new SessionInvalid()
      }
      // at most one write a minute per session
      if (now - session.lastSeenAt.getTime() > 60_000) yield* store.touchSession(digest, new Date(now))
      return { member: session.member, sessionDigest: digest, csrf: yield* csrfOf(token) } satisfies SignedIn
    })

    const signOut = Effect.fn("Members.signOut")(function* (token: string) {
      yield* store.deleteSession(yield* crypto.sha256(token))
    })

    const changePassword = Effect.fn("Members.changePassword")(function* (
      memberId: string,
      current: string,
      next: string
    ) {
      const member = yield* store.find(memberId)
      if (Option.isNone(member)) return yield* new MemberNotFound({ memberId })
      const found = yield* store.findByEmail(member.value.email)
      if (Option.isNone(found) || !(yield* hasher.verify(found.value.passwordHash, current))) {
        return yield* new SignInRefused()
      }
      yield* checkPassword(next)
      yield* store.setPassword(memberId, yield* hasher.hash(next))
    })

    const requireOwner = (actor: Member) =>
      actor.role === "owner" ? Effect.void : Effect.fail(new Forbidden({ message: "only owners manage members" }))

    const memberOf = Effect.fn("Members.memberOf")(function* (actor: Member, memberId: string) {
      const target = yield* store.find(memberId)
      if (Option.isNone(target) || target.value.accountId !== actor.accountId) {
        return yield* new MemberNotFound({ memberId })
      }
      return target.value
    })

    const ownersLeft = (accountId: string, without: string) =>
      Effect.map(store.list(accountId), (all) => all.filter((m) => m.role === "owner" && m.id !== without).length)

    const inviteAs = Effect.fn("Members.inviteAs")(function* (actor: Member, email: string, role: Role) {
      yield* requireOwner(actor)
      return yield* invite({ accountId: actor.accountId, email, role })
    })

    const changeRole = Effect.fn("Members.changeRole")(function* (actor: Member, memberId: string, role: Role) {
      yield* requireOwner(actor)
      const target = yield* memberOf(actor, memberId)
      if (role === "member" && target.role === "owner" && (yield* ownersLeft(actor.accountId, target.id)) === 0) {
        return yield* new Forbidden({ message: "an account keeps at least one owner" })
      }
      yield* store.setRole(target.id, role)
    })

    const remove = Effect.fn("Members.remove")(function* (actor: Member, memberId: string) {
      yield* requireOwner(actor)
      const target = yield* memberOf(actor, memberId)
      if (target.role === "owner" && (yield* ownersLeft(actor.accountId, target.id)) === 0) {
        return yield* new Forbidden({ message: "an account keeps at least one owner" })
      }
      yield* store.remove(target.id)
    })

    const list = (accountId: string) => store.list(accountId)

    return {
      invite,
      inviteAs,
      accept,
      signIn,
      authenticate,
      signOut,
      changePassword,
      changeRole,
      remove,
      list
    } as const
  })
}) {}
