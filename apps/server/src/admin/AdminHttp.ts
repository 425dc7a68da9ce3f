/**
 * The operator API, on its own listener (ADMIN_PORT, loopback by default), protected by the operator token.
 * API keys reach none of it (D6): only `Authorization: Bearer <operator token>` is accepted.
 */

import { createHash, timingSafeEqual } from "node:crypto"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Accounts, Keys, Ledger, Members, Tracking } from "@pdr/domain"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import * as RequestId from "../RequestId.js"

const digest = (s: string) => createHash("sha256").update(s).digest()

const errorResponse = (status: number, code: string, message: string, details?: unknown) =>
  HttpServerResponse.unsafeJson(
    { error: { code, message, requestId: RequestId.make(), ...(details === undefined ? {} : { details }) } },
    { status }
  )

const iso = (d: DateTime.Utc) => DateTime.formatIso(d)
const isoOption = (d: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(d, iso))

const accountView = (a: Ledger.Account) => ({
  accountId: a.id,
  name: a.name,
  balance: a.balance,
  held: a.held,
  spendable: a.spendable,
  createdAt: iso(a.createdAt)
})

const keyView = (k: import("@pdr/domain").KeyStore.StoredKey) => ({
  keyId: k.id,
  accountId: k.accountId,
  name: k.name,
  prefix: k.prefix,
  createdAt: iso(k.createdAt),
  expiresAt: isoOption(k.expiresAt),
  revokedAt: isoOption(k.revokedAt),
  lastUsedAt: isoOption(k.lastUsedAt),
  calls: k.calls,
  creditsSpent: k.creditsSpent
})

const body = <A, I>(schema: Schema.Schema<A, I>) =>
  HttpServerRequest.schemaBodyJson(schema, { onExcessProperty: "error" })

const CreateAccount = Schema.Struct({ name: Schema.String, credits: Schema.optional(Schema.Number) })
const Grant = Schema.Struct({ credits: Schema.Number, reason: Schema.String })
const CreateKey = Schema.Struct({ name: Schema.String, expires: Schema.optional(Schema.String) })

// ---- issue 11: tracked entities (the nightly refresh's list), thin calls into domain Tracking; port as one group ----
const TrackAdd = Schema.Struct({
  platform: Schema.String,
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
const TrackRemove = Schema.Struct({ platform: Schema.String, subject: Schema.String })
const trackedView = (e: import("@pdr/domain").Demand.Tracked) => ({
  platform: e.platform,
  op: e.op,
  subject: e.subject,
  request: e.request,
  pinned: e.pinned,
  demandedAt: e.demandedAt === null ? null : e.demandedAt.toISOString()
})
const trackRoutes = <E, R>(router: HttpRouter.HttpRouter<E, R>) =>
  router.pipe(
    HttpRouter.post(
      "/admin/tracked",
      Effect.gen(function* () {
        const input = yield* body(TrackAdd)
        const pinned = yield* Tracking.pin(input.platform, input.request)
        return yield* HttpServerResponse.json(
          { tracked: pinned.map((e) => trackedView({ ...e, pinned: true, demandedAt: null })) },
          { status: 201 }
        )
      })
    ),
    HttpRouter.post(
      "/admin/tracked/remove",
      Effect.gen(function* () {
        const input = yield* body(TrackRemove)
        return yield* HttpServerResponse.json({ removed: yield* Tracking.unpin(input.platform, input.subject) })
      })
    ),
    HttpRouter.get(
      "/admin/tracked",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const pinnedOnly = new URL(request.url, "http://x").searchParams.get("pinned") === "true"
        return yield* HttpServerResponse.json({ tracked: (yield* Tracking.list(pinnedOnly)).map(trackedView) })
      })
    )
  )
const trackErrors = new Set(["InvalidRequest", "UnknownOp", "UnknownPlatform", "NotTrackable"])
// ---- end of issue 11's block ----

const InviteMember = Schema.Struct({ email: Schema.String, role: Schema.optional(Schema.Literal("owner", "member")) })
const param = (name: string) => Effect.map(HttpRouter.params, (p) => p[name] ?? "")

/** The operator routes, behind the token check. */
export const make = (token: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts.Accounts
    const keys = yield* Keys.Keys
    const ledger = yield* Ledger.Ledger
    const members = yield* Members.Members
    const expected = digest(Redacted.value(token))

    const router = HttpRouter.empty.pipe(
      HttpRouter.post(
        "/admin/accounts",
        Effect.gen(function* () {
          const input = yield* body(CreateAccount)
          const account = yield* accounts.create({ name: input.name, credits: input.credits })
          return yield* HttpServerResponse.json(accountView(account), { status: 201 })
        })
      ),
      HttpRouter.get(
        "/admin/accounts",
        Effect.flatMap(accounts.list(), (all) => HttpServerResponse.json({ accounts: all.map(accountView) }))
      ),
      HttpRouter.get(
        "/admin/accounts/:accountId",
        Effect.gen(function* () {
          const shown = yield* accounts.show(yield* param("accountId"))
          return yield* HttpServerResponse.json({
            ...accountView(shown.account),
            holds: shown.holds.map((h) => ({
              holdId: h.id,
              keyId: h.keyId,
              amount: h.amount,
              expiresAt: iso(h.expiresAt)
            })),
            ledger: shown.entries.map((e) => ({
              id: e.id,
              kind: e.kind,
              credits: e.credits,
              reason: e.reason,
              keyId: e.keyId,
              at: iso(e.at)
            }))
          })
        })
      ),
      HttpRouter.post(
        "/admin/accounts/:accountId/credits",
        Effect.gen(function* () {
          const input = yield* body(Grant)
          const account = yield* accounts.grant({ accountId: yield* param("accountId"), ...input })
          return yield* HttpServerResponse.json(accountView(account))
        })
      ),
      HttpRouter.post(
        "/admin/accounts/:accountId/keys",
        Effect.gen(function* () {
          const input = yield* body(CreateKey)
          const expiresAt = input.expires === undefined ? undefined : new Date(input.expires)
          const created = yield* keys.create({ accountId: yield* param("accountId"), name: input.name, expiresAt })
          return yield* HttpServerResponse.json({ ...keyView(created.stored), key: created.key }, { status: 201 })
        })
      ),
      HttpRouter.get(
        "/admin/accounts/:accountId/keys",
        Effect.gen(function* () {
          const list = yield* keys.list(yield* param("accountId"))
          return yield* HttpServerResponse.json({ keys: list.map(keyView) })
        })
      ),
      // ---- i12 (D20) member invite: BEGIN (a thin call into Members.invite; port to the admin HttpApi group) ----
      HttpRouter.post(
        "/admin/accounts/:accountId/members/invitations",
        Effect.gen(function* () {
          const input = yield* body(InviteMember)
          const invited = yield* members.invite({
            accountId: yield* param("accountId"),
            email: input.email,
            role: input.role ?? "owner"
          })
          return yield* HttpServerResponse.json(
            {
              email: invited.email,
              role: invited.role,
              expiresAt: invited.expiresAt.toISOString(),
              signUpPath: `/dashboard/sign-up?token=${invited.token}`
            },
            { status: 201 }
          )
        })
      ),
      // ---- i12 member invite: END ----
      HttpRouter.post(
        "/admin/keys/:keyId/revoke",
        Effect.gen(function* () {
          const result = yield* keys.revoke(yield* param("keyId"))
          return yield* HttpServerResponse.json({
            keyId: result.keyId,
            revoked: true,
            alreadyRevoked: result.alreadyRevoked
          })
        })
      ),
      HttpRouter.post(
        "/admin/holds/sweep",
        Effect.gen(function* () {
          const released = yield* ledger.releaseExpired(DateTime.toDate(yield* DateTime.now))
          return yield* HttpServerResponse.json({ released })
        })
      ),
      trackRoutes // issue 11
    )

    const authorized = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const match = /^Bearer (\S+)$/.exec(request.headers["authorization"] ?? "")
      return match !== null && timingSafeEqual(digest(match[1]!), expected)
    })

    return Effect.gen(function* () {
      if (!(yield* authorized))
        return errorResponse(401, "unauthorized", "the operator token is required (Authorization: Bearer <token>)")
      return yield* router
    }).pipe(
      Effect.catchAll((e: unknown) => {
        const tag = (e as { _tag?: string })._tag
        if (tag === "InvalidInput") {
          const i = e as Keys.InvalidInput
          return Effect.succeed(
            errorResponse(400, "invalid_request", `${i.field} ${i.message}`, [{ path: i.field, message: i.message }])
          )
        }
        if (tag === "AccountNotFound" || tag === "KeyNotFound") {
          return Effect.succeed(errorResponse(404, "not_found", (e as Error).message))
        }
        if (tag !== undefined && trackErrors.has(tag)) {
          return Effect.succeed(errorResponse(400, "invalid_request", (e as Error).message)) // issue 11
        }
        if (tag === "RouteNotFound") return Effect.succeed(errorResponse(404, "not_found", "no such operator route"))
        if (tag === "RequestError" || tag === "ParseError") {
          return Effect.succeed(
            errorResponse(400, "invalid_request", "the body must be JSON of the documented shape", String(e))
          )
        }
        return Effect.logError("operator API failure", e).pipe(
          Effect.as(errorResponse(500, "internal", "internal error"))
        )
      })
    )
  })
