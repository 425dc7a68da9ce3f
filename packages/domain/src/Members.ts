/**
 * Members and sessions of an account (D20): one-time invitations, memory-hard passwords, server-side sessions with
 * idle and absolute expiry, sign-in failures limited per address and per email and never saying whether the email
 * exists, owners managing members. Tokens (invitations, sessions) are only ever stored as SHA-256 digests.
 */
import { Context, DateTime, Duration, Effect, Option, Schema } from "effect"
import { WireId, wire } from "./ErrorCodes.js"
import * as Ids from "./Ids.js"
import { InvalidInput } from "./Keys.js"
import { CommonPasswords } from "./ports/CommonPasswords.js"
import { Crypto } from "./ports/Crypto.js"
import { AccountNotFound, Ledger } from "./ports/Ledger.js"
import { type Member, MemberStore, type PendingInvitation, type Role } from "./ports/MemberStore.js"
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
    return `Too many attempts; try again in ${this.retryAfterSeconds} seconds.`
  }
}

/** The invitation token is unknown, used or expired, or its email already belongs to a member. */
export class InvitationInvalid extends Schema.TaggedError<InvitationInvalid>()("InvitationInvalid", {}) {
  override get message() {
    return "This sign-up link is invalid, used or expired; ask an owner for a new one."
  }
}

/** A password reset link is unknown, used or expired (one message for the three). */
export class ResetInvalid extends Schema.TaggedError<ResetInvalid>()("ResetInvalid", {}) {
  override get message() {
    return "This password reset link is invalid, used or expired; ask for a new one."
  }
}

/** The email already belongs to a member (of this account or another): no invitation is made. */
export class AlreadyMember extends Schema.TaggedError<AlreadyMember>()("AlreadyMember", { email: Schema.String }) {
  override get message() {
    return `${this.email} is already a member; to let them back in, issue a password reset instead`
  }
  get [WireId]() {
    return wire("conflict")
  }
}

/** No pending invitation with this id in the account. */
export class InvitationNotFound extends Schema.TaggedError<InvitationNotFound>()("InvitationNotFound", {}) {
  override get message() {
    return "no such pending invitation"
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
    idleTimeout: Duration.hours(2),
    /** A session ends this long after sign-in whatever its use. */
    absoluteTimeout: Duration.hours(12),
    /** An invitation link is valid this long. */
    invitationTtl: Duration.days(7),
    /** A password reset link is valid this long. */
    resetTtl: Duration.hours(1),
    /** Failed sign-ins per client address: a burst, then a slow refill. */
    failedPerAddress: { name: "signin-address", perSecond: 0.1, burst: 10 } satisfies RateLimits.Policy,
    /**
     * Failed sign-ins per email from one address: a client that has not failed is never locked out of a correct
     * password by someone else's failures (issue 24).
     */
    failedPerEmail: { name: "signin-email-address", perSecond: 0.02, burst: 5 } satisfies RateLimits.Policy,
    /** "Forgot password" requests per client address. */
    resetsPerAddress: { name: "reset-address", perSecond: 1 / 60, burst: 5 } satisfies RateLimits.Policy
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

/** Passwords of 10 to 200 characters that are not on the common-password list. */
export const checkPassword = (common: CommonPasswords["Type"], password: string, field = "password") =>
  password.length < 10 || password.length > 200
    ? Effect.fail(new InvalidInput({ field, message: "must be 10 to 200 characters" }))
    : Effect.flatMap(common.includes(password), (listed) =>
        listed
          ? Effect.fail(
              new InvalidInput({
                field,
                message:
                  "is on a list of common passwords that attackers try first; choose another (a few unrelated words work well)"
              })
            )
          : Effect.void
      )

const later = (now: DateTime.Utc, d: Duration.Duration) => new Date(DateTime.toEpochMillis(now) + Duration.toMillis(d))

/** Members, invitations and sessions over the MemberStore, PasswordHasher, Crypto and Ledger ports. */
export class Members extends Effect.Service<Members>()("@pdr/domain/Members", {
  effect: Effect.gen(function* () {
    const store = yield* MemberStore
    const hasher = yield* PasswordHasher
    const crypto = yield* Crypto
    const ledger = yield* Ledger
    const common = yield* CommonPasswords
    const settings = yield* MemberSettings
    const byAddress = RateLimits.buckets(settings.failedPerAddress)
    const byEmail = RateLimits.buckets(settings.failedPerEmail)
    const resetsByAddress = RateLimits.buckets(settings.resetsPerAddress)
    const pairOf = (email: string, address: string) => `${email}\n${address}`
    const checkNew = (password: string, field?: string) => checkPassword(common, password, field)

    const invite = Effect.fn("Members.invite")(function* (input: {
      readonly accountId: string
      readonly email: string
      readonly role: Role
    }) {
      const email = yield* normalizeEmail(input.email)
      if (Option.isNone(yield* ledger.findAccount(input.accountId))) {
        return yield* new AccountNotFound({ accountId: input.accountId })
      }
      // a member's email cannot accept an invitation: say so instead of minting a link that would fail
      if (Option.isSome(yield* store.findByEmail(email))) return yield* new AlreadyMember({ email })
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
      yield* checkNew(password)
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
      const gates = [yield* byAddress.peek(input.address), yield* byEmail.peek(pairOf(email, input.address))]
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
        yield* byEmail.take(pairOf(email, input.address))
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
      yield* checkNew(next, "next")
      yield* store.setPassword(memberId, yield* hasher.hash(next))
    })

    /** A one-time password reset link's token for the member (valid `resetTtl`). */
    const issueReset = Effect.fn("Members.issueReset")(function* (member: Member) {
      const token = `rst_${yield* Ids.base62(crypto, 32)}`
      const now = yield* DateTime.now
      const expiresAt = later(now, settings.resetTtl)
      yield* store.insertReset({ digest: yield* crypto.sha256(token), memberId: member.id, expiresAt })
      return { token, member, expiresAt }
    })

    /** An owner's reset link for a member of their account. */
    const issueResetAs = Effect.fn("Members.issueResetAs")(function* (actor: Member, memberId: string) {
      yield* requireOwner(actor)
      return yield* issueReset(yield* memberOf(actor, memberId))
    })

    /** The operator's reset link for anyone, by email. */
    const issueResetByEmail = Effect.fn("Members.issueResetByEmail")(function* (rawEmail: string) {
      const email = yield* normalizeEmail(rawEmail)
      const found = yield* store.findByEmail(email)
      if (Option.isNone(found)) return yield* new MemberNotFound({ memberId: email })
      return yield* issueReset(found.value.member)
    })

    /**
     * "Forgot password": a reset for the email when it is a member's, none otherwise (the caller answers the same
     * either way); limited per client address.
     */
    const forgot = Effect.fn("Members.forgot")(function* (rawEmail: string, address: string) {
      const email = yield* normalizeEmail(rawEmail)
      const gate = yield* resetsByAddress.take(address)
      if (!gate.allowed) return yield* new SignInLimited({ retryAfterSeconds: Math.max(1, gate.resetSeconds) })
      const found = yield* store.findByEmail(email)
      if (Option.isNone(found)) return Option.none()
      return Option.some(yield* issueReset(found.value.member))
    })

    const validReset = Effect.fn("Members.validReset")(function* (token: string) {
      if (!/^rst_[0-9A-Za-z]{32}$/.test(token)) return yield* new ResetInvalid()
      const found = yield* store.findReset(yield* crypto.sha256(token))
      const now = DateTime.toEpochMillis(yield* DateTime.now)
      if (Option.isNone(found) || Option.isSome(found.value.usedAt) || found.value.expiresAt.getTime() <= now) {
        return yield* new ResetInvalid()
      }
      return found.value
    })

    /** Sets the new password from a reset link and ends every session of the member, in one transaction. */
    const resetPassword = Effect.fn("Members.resetPassword")(function* (token: string, password: string) {
      const reset = yield* validReset(token)
      yield* checkNew(password)
      const done = yield* store.useReset({
        digest: reset.digest,
        passwordHash: yield* hasher.hash(password),
        now: DateTime.toDate(yield* DateTime.now)
      })
      if (Option.isNone(done)) return yield* new ResetInvalid()
      return done.value
    })

    /** The account's invitations not yet accepted (expired ones included, marked by their expiry). */
    const pendingInvitations = (accountId: string): Effect.Effect<ReadonlyArray<PendingInvitation>> =>
      store.pendingInvitations(accountId)

    const pendingOf = Effect.fn("Members.pendingOf")(function* (actor: Member, id: string) {
      yield* requireOwner(actor)
      const found = (yield* store.pendingInvitations(actor.accountId)).find((i) => i.id === id)
      if (found === undefined) return yield* new InvitationNotFound()
      return found
    })

    /** Cancels a pending invitation: its link stops working. */
    const cancelInvitation = Effect.fn("Members.cancelInvitation")(function* (actor: Member, id: string) {
      const found = yield* pendingOf(actor, id)
      yield* store.deleteInvitation(found.digest)
      return found
    })

    /** A new link for a pending invitation (the old one stops working), valid `invitationTtl` again. */
    const resendInvitation = Effect.fn("Members.resendInvitation")(function* (actor: Member, id: string) {
      const found = yield* pendingOf(actor, id)
      yield* store.deleteInvitation(found.digest)
      return yield* invite({ accountId: actor.accountId, email: found.email, role: found.role })
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
      validInvitation,
      accept,
      issueReset,
      issueResetAs,
      issueResetByEmail,
      forgot,
      validReset,
      resetPassword,
      pendingInvitations,
      cancelInvitation,
      resendInvitation,
      memberOf,
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
