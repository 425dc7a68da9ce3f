/** The MemberStore port on PostgreSQL: members, invitations and sessions; tokens only as SHA-256 digests (D20). */
import { SqlClient } from "@effect/sql"
import { MemberStore as M } from "@pdr/domain"
import { Effect, Layer, Option } from "effect"
import { date, utc } from "./Rows.js"

const toMember = (r: Record<string, unknown>) =>
  new M.Member({
    id: String(r["id"]),
    accountId: String(r["account_id"]),
    email: String(r["email"]),
    role: r["role"] === "owner" ? "owner" : "member",
    createdAt: utc(r["created_at"])
  })

/** The MemberStore adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const memberColumns = sql`m.id, m.account_id, m.email, m.role, m.created_at`
  return M.MemberStore.of({
    insertInvitation: (i) =>
      sql`INSERT INTO invitations (digest, account_id, email, role, expires_at)
          VALUES (${i.digest}, ${i.accountId}, ${i.email}, ${i.role}, ${i.expiresAt})`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    acceptInvitation: (input) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const used = yield* sql`UPDATE invitations SET used_at = ${input.now}
              WHERE digest = ${input.digest} AND used_at IS NULL AND expires_at > ${input.now}
              RETURNING account_id, email, role`
            const invitation = used[0]
            if (invitation === undefined) return Option.none()
            const rows = yield* sql`INSERT INTO members (id, account_id, email, password_hash, role)
              VALUES (${input.memberId}, ${String(invitation["account_id"])}, ${String(invitation["email"])},
                      ${input.passwordHash}, ${String(invitation["role"])})
              ON CONFLICT DO NOTHING
              RETURNING id, account_id, email, role, created_at`
            // the email already belongs to a member: the invitation stays unused
            if (rows[0] === undefined) return yield* Effect.fail("taken" as const)
            return Option.some(toMember(rows[0]))
          })
        )
        .pipe(Effect.catchAll((e) => (e === "taken" ? Effect.succeed(Option.none()) : Effect.die(e)))),
    findInvitation: (digest) =>
      sql`SELECT * FROM invitations WHERE digest = ${digest}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({
            digest: String(r["digest"]),
            accountId: String(r["account_id"]),
            email: String(r["email"]),
            role: r["role"] === "owner" ? ("owner" as const) : ("member" as const),
            expiresAt: date(r["expires_at"]),
            usedAt: r["used_at"] === null ? Option.none() : Option.some(date(r["used_at"]))
          }))
        ),
        Effect.orDie
      ),
    pendingInvitations: (accountId) =>
      sql`SELECT digest, email, role, created_at, expires_at FROM invitations
          WHERE account_id = ${accountId} AND used_at IS NULL ORDER BY created_at, digest`.pipe(
        Effect.map((rows) =>
          rows.map((r) => ({
            id: String(r["digest"]).slice(0, 16),
            digest: String(r["digest"]),
            email: String(r["email"]),
            role: r["role"] === "owner" ? ("owner" as const) : ("member" as const),
            createdAt: date(r["created_at"]),
            expiresAt: date(r["expires_at"])
          }))
        ),
        Effect.orDie
      ),
    deleteInvitation: (digest) =>
      sql`DELETE FROM invitations WHERE digest = ${digest} AND used_at IS NULL RETURNING digest`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    insertReset: (r) =>
      sql`INSERT INTO password_resets (digest, member_id, expires_at)
          VALUES (${r.digest}, ${r.memberId}, ${r.expiresAt})`.pipe(Effect.asVoid, Effect.orDie),
    findReset: (digest) =>
      sql`SELECT * FROM password_resets WHERE digest = ${digest}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({
            digest: String(r["digest"]),
            memberId: String(r["member_id"]),
            expiresAt: date(r["expires_at"]),
            usedAt: r["used_at"] === null ? Option.none<Date>() : Option.some(date(r["used_at"]))
          }))
        ),
        Effect.orDie
      ),
    useReset: (input) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const used = yield* sql`UPDATE password_resets SET used_at = ${input.now}
              WHERE digest = ${input.digest} AND used_at IS NULL AND expires_at > ${input.now}
              RETURNING member_id`
            const memberId = used[0]?.["member_id"]
            if (memberId === undefined) return Option.none()
            const rows = yield* sql`UPDATE members m SET password_hash = ${input.passwordHash}
              WHERE m.id = ${String(memberId)} RETURNING ${memberColumns}`
            yield* sql`DELETE FROM sessions WHERE member_id = ${String(memberId)}`
            // every other reset link of the member stops working too
            yield* sql`UPDATE password_resets SET used_at = ${input.now}
              WHERE member_id = ${String(memberId)} AND used_at IS NULL`
            return Option.map(Option.fromNullable(rows[0]), toMember)
          })
        )
        .pipe(Effect.orDie),
    findByEmail: (email) =>
      sql`SELECT ${memberColumns}, m.password_hash FROM members m WHERE lower(m.email) = lower(${email})`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({
            member: toMember(r),
            passwordHash: String(r["password_hash"])
          }))
        ),
        Effect.orDie
      ),
    find: (memberId) =>
      sql`SELECT ${memberColumns} FROM members m WHERE m.id = ${memberId}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toMember)),
        Effect.orDie
      ),
    list: (accountId) =>
      sql`SELECT ${memberColumns} FROM members m WHERE m.account_id = ${accountId} ORDER BY m.created_at, m.id`.pipe(
        Effect.map((rows) => rows.map(toMember)),
        Effect.orDie
      ),
    setRole: (memberId, role) =>
      sql`UPDATE members SET role = ${role} WHERE id = ${memberId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    setPassword: (memberId, passwordHash) =>
      sql
        .withTransaction(
          Effect.zipLeft(
            sql`UPDATE members SET password_hash = ${passwordHash} WHERE id = ${memberId} RETURNING id`,
            sql`DELETE FROM sessions WHERE member_id = ${memberId}`
          )
        )
        .pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
    remove: (memberId) =>
      sql
        .withTransaction(
          Effect.zipRight(
            sql`DELETE FROM sessions WHERE member_id = ${memberId}`,
            sql`DELETE FROM members WHERE id = ${memberId} RETURNING id`
          )
        )
        .pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
    insertSession: (s) =>
      sql`INSERT INTO sessions (digest, member_id, created_at, last_seen_at, expires_at)
          VALUES (${s.digest}, ${s.memberId}, ${s.createdAt}, ${s.createdAt}, ${s.expiresAt})`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    findSession: (digest) =>
      sql`SELECT ${memberColumns}, s.digest, s.created_at AS s_created_at, s.last_seen_at, s.expires_at
          FROM sessions s JOIN members m ON m.id = s.member_id WHERE s.digest = ${digest}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({
            digest: String(r["digest"]),
            member: toMember(r),
            createdAt: date(r["s_created_at"]),
            lastSeenAt: date(r["last_seen_at"]),
            expiresAt: date(r["expires_at"])
          }))
        ),
        Effect.orDie
      ),
    touchSession: (digest, at) =>
      sql`UPDATE sessions SET last_seen_at = greatest(last_seen_at, ${at}) WHERE digest = ${digest}`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    deleteSession: (digest) => sql`DELETE FROM sessions WHERE digest = ${digest}`.pipe(Effect.asVoid, Effect.orDie)
  })
})

/** The MemberStore port on the SqlClient. */
export const layer = Layer.effect(M.MemberStore, make)
