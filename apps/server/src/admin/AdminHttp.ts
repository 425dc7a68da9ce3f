/**
 * The operator API (the `AdminApi` contract), on its own listener (ADMIN_PORT, loopback by default), protected by
 * the operator token. API keys reach none of it (D6): only `Authorization: Bearer <operator token>` is accepted.
 * Its OpenAPI document is served at `/openapi.json` on that listener.
 */

import { createHash, timingSafeEqual } from "node:crypto"
import { Headers, HttpApiBuilder, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Health, Telemetry } from "@pdr/core"
import {
  Accounts,
  Audit,
  type Calls,
  type Demand,
  type KeyStore,
  Keys,
  Ledger,
  Members,
  Requests,
  Tracking
} from "@pdr/domain"
import { AdminApi } from "@pdr/http-api"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import * as ApiErrors from "../http/ApiErrors.js"
import * as RequestId from "../RequestId.js"
import * as MetricsHttp from "./MetricsHttp.js"
import * as OperatorToken from "./OperatorToken.js"

const iso = (d: DateTime.Utc) => DateTime.formatIso(d)
const isoOption = (d: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(d, iso))

const accountView = (a: Ledger.Account): typeof AdminApi.Account.Type => ({
  accountId: a.id,
  name: a.name,
  balance: a.balance,
  held: a.held,
  spendable: a.spendable,
  createdAt: iso(a.createdAt)
})

const keyView = (k: KeyStore.StoredKey): typeof AdminApi.Key.Type => ({
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

/** 400 `invalid_request` naming the field. */
const invalid = (e: Keys.InvalidInput) => ApiErrors.fromDomain(e)

/** 404 `not_found`. */
const notFound = (e: Ledger.AccountNotFound | Keys.KeyNotFound) => ApiErrors.fromDomain(e)

const AccountsLive = HttpApiBuilder.group(AdminApi.AdminApi, "accounts", (handlers) =>
  Effect.map(Accounts.Accounts, (accounts) =>
    handlers
      .handle("create", ({ payload }) =>
        accounts.create(payload).pipe(Effect.map(accountView), Effect.catchTag("InvalidInput", invalid))
      )
      .handle("list", () => Effect.map(accounts.list(), (all) => ({ accounts: all.map(accountView) })))
      .handle("show", ({ path }) =>
        accounts.show(path.accountId).pipe(
          Effect.map((shown) => ({
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
          })),
          Effect.catchTag("AccountNotFound", notFound)
        )
      )
  )
)

const CreditsLive = HttpApiBuilder.group(AdminApi.AdminApi, "credits", (handlers) =>
  Effect.map(Accounts.Accounts, (accounts) =>
    handlers.handle("grant", ({ path, payload }) =>
      accounts
        .grant({ accountId: path.accountId, ...payload })
        .pipe(Effect.map(accountView), Effect.catchTags({ InvalidInput: invalid, AccountNotFound: notFound }))
    )
  )
)

const KeysLive = HttpApiBuilder.group(AdminApi.AdminApi, "keys", (handlers) =>
  Effect.map(Keys.Keys, (keys) =>
    handlers
      .handle("create", ({ path, payload }) =>
        keys
          .create({
            accountId: path.accountId,
            name: payload.name,
            expiresAt: payload.expires === undefined ? undefined : new Date(payload.expires)
          })
          .pipe(
            Effect.map((created) => ({ ...keyView(created.stored), key: created.key })),
            Effect.catchTags({ InvalidInput: invalid, AccountNotFound: notFound })
          )
      )
      .handle("list", ({ path }) =>
        keys.list(path.accountId).pipe(
          Effect.map((list) => ({ keys: list.map(keyView) })),
          Effect.catchTag("AccountNotFound", notFound)
        )
      )
      .handle("revoke", ({ path }) =>
        keys.revoke(path.keyId).pipe(
          Effect.map((r) => ({ keyId: r.keyId, revoked: true as const, alreadyRevoked: r.alreadyRevoked })),
          Effect.catchTag("KeyNotFound", notFound)
        )
      )
  )
)

const HoldsLive = HttpApiBuilder.group(AdminApi.AdminApi, "holds", (handlers) =>
  Effect.map(Ledger.Ledger, (ledger) =>
    handlers.handle("sweep", () =>
      Effect.map(
        Effect.flatMap(DateTime.now, (now) => ledger.releaseExpired(DateTime.toDate(now))),
        (released) => ({ released })
      )
    )
  )
)

const trackedView = (e: Demand.Tracked): typeof AdminApi.Tracked.Type => ({
  platform: e.platform,
  op: e.op,
  subject: e.subject,
  request: e.request,
  pinned: e.pinned,
  demandedAt: e.demandedAt === null ? null : e.demandedAt.toISOString()
})

/** 400 `invalid_request` naming what a tracked request gets wrong (its fields, op, platform, or no window). */
const untrackable = (
  e: Requests.InvalidRequest | Requests.UnknownOp | Requests.UnknownPlatform | Tracking.NotTrackable
) =>
  ApiErrors.fail(
    "invalid_request",
    e.message,
    e._tag === "InvalidRequest"
      ? e.details.map((d) => ({ path: d.path, message: d.message }))
      : [{ path: e._tag === "UnknownPlatform" ? "platform" : "request.op", message: e.message }]
  )

const TrackedLive = HttpApiBuilder.group(AdminApi.AdminApi, "tracked", (handlers) =>
  Effect.map(Effect.context<Calls.Calls>(), (context) =>
    handlers
      .handle("add", ({ payload }) =>
        Tracking.pin(payload.platform, payload.request).pipe(
          Effect.map((pinned) => ({
            tracked: pinned.map((e) => trackedView({ ...e, pinned: true, demandedAt: null }))
          })),
          Effect.catchTags({
            InvalidRequest: untrackable,
            UnknownOp: untrackable,
            UnknownPlatform: untrackable,
            NotTrackable: untrackable,
            // planning resolves a store or an explore source upstream; when that fails nothing is pinned
            EveryUnitFailed: (e) => ApiErrors.fail("upstream_failed", e.message)
          }),
          Effect.provide(context)
        )
      )
      .handle("remove", ({ payload }) =>
        Effect.map(Tracking.unpin(payload.platform, payload.subject), (removed) => ({ removed }))
      )
      .handle("list", ({ urlParams }) =>
        Effect.map(Tracking.list(urlParams.pinned ?? false), (all) => ({ tracked: all.map(trackedView) }))
      )
  )
)

const MembersLive = HttpApiBuilder.group(AdminApi.AdminApi, "members", (handlers) =>
  Effect.map(Effect.all([Members.Members, Audit.Audit]), ([members, audit]) =>
    handlers
      .handle("reset", ({ payload }) =>
        members.issueResetByEmail(payload.email).pipe(
          Effect.tap((r) =>
            audit.record({
              accountId: r.member.accountId,
              actor: "operator",
              address: "operator API",
              action: "password reset issued",
              subject: r.member.email
            })
          ),
          Effect.map((r) => ({
            email: r.member.email,
            expiresAt: r.expiresAt.toISOString(),
            resetPath: `/dashboard/reset?token=${r.token}`
          })),
          Effect.catchTags({
            InvalidInput: invalid,
            MemberNotFound: () => ApiErrors.fail("not_found", `no member has the email ${payload.email}`)
          })
        )
      )
      .handle("invite", ({ path, payload }) =>
        members.invite({ accountId: path.accountId, email: payload.email, role: payload.role ?? "owner" }).pipe(
          Effect.map((invited) => ({
            email: invited.email,
            role: invited.role,
            expiresAt: invited.expiresAt.toISOString(),
            signUpPath: `/dashboard/sign-up?token=${invited.token}`
          })),
          Effect.catchTags({
            InvalidInput: invalid,
            AccountNotFound: notFound,
            AlreadyMember: (e) => ApiErrors.fromDomain(e)
          })
        )
      )
  )
)

const digest = (s: string) => createHash("sha256").update(s).digest()

/** The operator token check; the `Bearer ` prefix is checked here (the framework's decoder does not). */
const authLayer = (token: Redacted.Redacted<string>) =>
  Layer.sync(AdminApi.OperatorAuth, () => {
    const expected = digest(Redacted.value(token))
    return AdminApi.OperatorAuth.of({
      operator: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const match = /^Bearer (\S+)$/.exec(request.headers["authorization"] ?? "")
          if (match !== null && timingSafeEqual(digest(match[1]!), expected)) return
          return yield* ApiErrors.fail("unauthorized", OperatorToken.required)
        })
    })
  })

const render = ApiErrors.renderCause({ notFound: "no such operator route", internal: "internal error" })

/**
 * Request ids and D5 bodies for every answer of the operator API, the framework's own errors included; every body is
 * read as JSON whatever its content type (fetch sends a string body as text/plain).
 */
const errorsLayer = HttpApiBuilder.middleware(AdminApi.AdminApi, (app) =>
  Effect.gen(function* () {
    const request = RequestId.start()
    const incoming = yield* HttpServerRequest.HttpServerRequest
    const asJson =
      !(incoming.headers["content-type"] ?? "").includes("application/json") && incoming.method !== "GET"
        ? Effect.provideService(
            app,
            HttpServerRequest.HttpServerRequest,
            incoming.modify({ headers: Headers.set(incoming.headers, "content-type", "application/json") })
          )
        : app
    return yield* asJson.pipe(
      Effect.catchAllCause((cause) => render(cause, request.id)),
      Effect.map((response) => HttpServerResponse.setHeaders(response, request.headers)),
      Effect.locally(RequestId.current, request)
    )
  })
)

/** The operator API's routes, its OpenAPI document and its error rendering, over the domain services. */
const routes = (token: Redacted.Redacted<string>) =>
  Layer.mergeAll(
    HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" }),
    errorsLayer,
    MetricsHttp.layer(token),
    HttpApiBuilder.Router.Live,
    HttpApiBuilder.Middleware.layer
  ).pipe(
    Layer.provideMerge(
      HttpApiBuilder.api(AdminApi.AdminApi).pipe(
        Layer.provide([AccountsLive, CreditsLive, KeysLive, HoldsLive, TrackedLive, MembersLive]),
        Layer.provide(authLayer(token))
      )
    )
  )

/**
 * The operator API served on the HttpServer it is given. Its routes are built with a memo map of their own: the
 * HttpApiBuilder router and middleware are module-level layers that would otherwise be shared with the public API.
 */
export const layer = (token: Redacted.Redacted<string>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const services = yield* Effect.context<
        | Accounts.Accounts
        | Keys.Keys
        | Ledger.Ledger
        | Members.Members
        | Calls.Calls
        | Telemetry.Prometheus
        | Health.GaugeSource
        | Audit.Audit
      >()
      const context = yield* Layer.buildWithMemoMap(
        routes(token).pipe(Layer.provide(Layer.succeedContext(services))),
        yield* Layer.makeMemoMap,
        yield* Effect.scope
      )
      return HttpServer.serve(yield* Effect.provide(HttpApiBuilder.httpApp, context))
    })
  )
