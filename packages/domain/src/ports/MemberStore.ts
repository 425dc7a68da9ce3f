/** Port: the people of an account, their invitations and their server-side sessions (only digests of tokens). */
import { Context, type Effect, type Option, Schema } from "effect"

/** A member's role: owners manage members and keys; members manage keys and read usage (D20). */
export const Role = Schema.Literal("owner", "member")
/** A member's role. */
export type Role = typeof Role.Type

/** A member of an account. */
export class Member extends Schema.Class<Member>("Member")({
  id: Schema.String,
  accountId: Schema.String,
  email: Schema.String,
  role: Role,
  createdAt: Schema.DateTimeUtcFromSelf
}) {}

/** A stored invitation: the digest of its one-time token, never the token. */
export interface Invitation {
  readonly digest: string
  readonly accountId: string
  readonly email: string
  readonly role: Role
  readonly expiresAt: Date
  readonly usedAt: Option.Option<Date>
}

/** An invitation not yet accepted; `id` names it in the dashboard (a prefix of its digest, never the token). */
export interface PendingInvitation {
  readonly id: string
  readonly digest: string
  readonly email: string
  readonly role: Role
  readonly createdAt: Date
  readonly expiresAt: Date
}

/** A stored password reset: the digest of its one-time token, never the token. */
export interface PasswordReset {
  readonly digest: string
  readonly memberId: string
  readonly expiresAt: Date
  readonly usedAt: Option.Option<Date>
}

/** A stored session: the digest of its cookie token, never the token. */
export interface Session {
  readonly digest: string
  readonly member: Member
  readonly createdAt: Date
  readonly lastSeenAt: Date
  readonly expiresAt: Date
}

/** Port: members, invitations and sessions. */
export class MemberStore extends Context.Tag("@pdr/domain/MemberStore")<
  MemberStore,
  {
    readonly insertInvitation: (invitation: Omit<Invitation, "usedAt">) => Effect.Effect<void>
    /** Marks the unused invitation used and creates its member, in one transaction; none when it was used or expired. */
    readonly acceptInvitation: (input: {
      readonly digest: string
      readonly memberId: string
      readonly passwordHash: string
      readonly now: Date
    }) => Effect.Effect<Option.Option<Member>>
    readonly findInvitation: (digest: string) => Effect.Effect<Option.Option<Invitation>>
    /** The account's invitations not used yet, oldest first. */
    readonly pendingInvitations: (accountId: string) => Effect.Effect<ReadonlyArray<PendingInvitation>>
    readonly deleteInvitation: (digest: string) => Effect.Effect<boolean>
    readonly insertReset: (reset: {
      readonly digest: string
      readonly memberId: string
      readonly expiresAt: Date
    }) => Effect.Effect<void>
    readonly findReset: (digest: string) => Effect.Effect<Option.Option<PasswordReset>>
    /**
     * Marks the unused, unexpired reset used, sets the member's password and ends every session of theirs, in one
     * transaction; none when it was used or expired meanwhile.
     */
    readonly useReset: (input: {
      readonly digest: string
      readonly passwordHash: string
      readonly now: Date
    }) => Effect.Effect<Option.Option<Member>>
    /** The member with this email (case-insensitive) and their password hash. */
    readonly findByEmail: (
      email: string
    ) => Effect.Effect<Option.Option<{ readonly member: Member; readonly passwordHash: string }>>
    readonly find: (memberId: string) => Effect.Effect<Option.Option<Member>>
    readonly list: (accountId: string) => Effect.Effect<ReadonlyArray<Member>>
    readonly setRole: (memberId: string, role: Role) => Effect.Effect<boolean>
    /** Sets the password hash and ends every session of the member, in one transaction. */
    readonly setPassword: (memberId: string, passwordHash: string) => Effect.Effect<boolean>
    /** Deletes the member and every session of theirs. */
    readonly remove: (memberId: string) => Effect.Effect<boolean>
    readonly insertSession: (session: {
      readonly digest: string
      readonly memberId: string
      readonly createdAt: Date
      readonly expiresAt: Date
    }) => Effect.Effect<void>
    /** The session with this digest and its member (a removed member has none). */
    readonly findSession: (digest: string) => Effect.Effect<Option.Option<Session>>
    readonly touchSession: (digest: string, at: Date) => Effect.Effect<void>
    readonly deleteSession: (digest: string) => Effect.Effect<void>
  }
>() {}
