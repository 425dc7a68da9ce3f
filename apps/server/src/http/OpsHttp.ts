/**
 * `POST /api/v1/platforms/<platform>` (one endpoint per platform) and `GET /api/v1/balance`: each handler calls one
 * domain service. An op call with `Idempotency-Key` runs through the Idempotency service (D16) and a replay says
 * `Idempotent-Replayed: true`.
 */

import { createHash } from "node:crypto"
import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Calls, Catalogue, Freshness, Idempotency, Keys } from "@pdr/domain"
import { Api, Failure, Security } from "@pdr/http-api"
import { Effect, FiberRef, Layer } from "effect"
import * as RequestId from "../RequestId.js"
import { engineVersion } from "../Version.js"
import * as ApiErrors from "./ApiErrors.js"
import * as Body from "./Body.js"

const jsonType = /^application\/([\w.+-]+\+)?json\s*(;|$)/i

const versions = { contextVersion: Api.contextVersion, engineVersion }

/**
 * The JSON of answer rows served from the store: a stored view's rows are frozen and shared by every call that reads
 * them (Coverage.storedView), so each is serialized once; any other row is serialized each time.
 */
const rowJson = new WeakMap<object, string>()
const jsonOfRow = (row: object): string => {
  if (!Object.isFrozen(row)) return JSON.stringify(row)
  let json = rowJson.get(row)
  if (json === undefined) {
    json = JSON.stringify(row)
    rowJson.set(row, json)
  }
  return json
}

/**
 * A 200 op answer as JSON. The answer is built by the domain to the `OpResponse` shape the API publishes; it is written
 * as it is instead of being re-encoded through the Schema on every call (the e2e tests validate every answer against
 * the OpenAPI document, so the contract is still checked), its stored rows from their kept JSON.
 */
const ok = (body: { readonly data: ReadonlyArray<object> }) => {
  const { data, ...rest } = body
  const tail = JSON.stringify(rest)
  const rows = data.map(jsonOfRow).join(",")
  return HttpServerResponse.text(tail === "{}" ? `{"data":[${rows}]}` : `{"data":[${rows}],${tail.slice(1)}`, {
    contentType: "application/json"
  })
}

/** The handler of a call to a platform: the body is read and parsed here (Body), after the media type is checked. */
const platformCall = Effect.gen(function* () {
  const calls = yield* Calls.Calls
  const idempotency = yield* Idempotency.Idempotency
  const keys = yield* Keys.Keys

  /** The answer; with an idempotency key, a paid answer comes back as the text the settle kept (D16). */
  const answer = (caller: Security.CurrentCaller["Type"], platform: string, payload: unknown, key?: string) =>
    Effect.gen(function* () {
      const request = yield* FiberRef.get(RequestId.current)
      const envelope = { requestId: request.id, ...versions }
      const { kept, ...result } = yield* calls
        .call(caller, platform, payload, key === undefined ? undefined : { key, envelope })
        .pipe(Effect.catchAll(ApiErrors.fromDomain))
      yield* RequestId.note({ credits: result.cost.creditsCharged })
      // D20 usage: the answered call counted per key, day, platform and op in the key usage buffer (flushed every 2 s)
      const op = (payload as { request?: { op?: unknown } } | null)?.request?.op
      if (typeof op === "string" && Catalogue.findOp(platform, op) !== undefined) {
        yield* keys.recordOp(caller.keyId, platform, op)
      }
      return { body: { ...result, ...envelope }, kept }
    })

  return (platform: string, request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      const caller = yield* Security.CurrentCaller
      const contentType = request.headers["content-type"]
      if (contentType !== undefined && !jsonType.test(contentType)) {
        return yield* ApiErrors.fail("unsupported_media_type", `the body must be application/json, not ${contentType}`)
      }
      const payload = yield* Body.json(request).pipe(
        Effect.catchTag("RequestError", () =>
          ApiErrors.fail("invalid_request", ApiErrors.notJson.message, ApiErrors.notJson.details)
        )
      )
      const key = request.headers["idempotency-key"]
      if (key === undefined) {
        const { body } = yield* answer(caller, platform, payload)
        return yield* Effect.sync(() => ok(body)).pipe(Effect.withSpan("OpsHttp.answer", { captureStackTrace: false }))
      }
      const fingerprint = createHash("sha256")
        .update(`${platform}\n${Freshness.canonicalJson(payload)}`)
        .digest("hex")
      const kept = yield* idempotency
        .run(
          { accountId: caller.accountId, key, fingerprint },
          answer(caller, platform, payload, key).pipe(
            Effect.map(({ body, kept }) =>
              kept === undefined ? { status: 200, body } : { status: 200, body: kept, keptBySettle: true }
            ),
            Effect.catchAll((e) => Effect.succeed({ status: Failure.statusOf(e) ?? 500, body: { error: e.error } }))
          )
        )
        .pipe(Effect.catchAll(ApiErrors.fromDomain))
      if (kept.replayed) {
        // a replay is the original answer: its request id too, in the body and the header (D16, D17)
        const body = kept.body as { requestId?: unknown; error?: { requestId?: unknown } }
        const original = body.requestId ?? body.error?.requestId
        yield* RequestId.addHeaders({
          "idempotent-replayed": "true",
          ...(typeof original === "string" ? { "x-request-id": original } : {})
        })
      }
      if (kept.keptBySettle === true)
        return HttpServerResponse.text(kept.body as string, { contentType: "application/json" })
      if (kept.status === 200) return ok(kept.body as { readonly data: ReadonlyArray<object> })
      const body = kept.body as Failure.Body
      const replayed = Failure.fromBody(body)
      return replayed === undefined ? ApiErrors.response(kept.status, body.error) : yield* Effect.fail(replayed)
    })
})

/**
 * The handlers builder as the loop below sees it: the endpoint names come from the catalogue at run time, which the
 * builder's types cannot follow (the contract's tests check that every platform has its endpoint).
 */
type AnyHandlers = {
  readonly handleRaw: (
    name: string,
    handler: (args: { readonly request: HttpServerRequest.HttpServerRequest }) => unknown
  ) => AnyHandlers
}

/** The platforms group: one raw handler per platform of the catalogue, each the same call with its platform. */
export const platformsLayer = HttpApiBuilder.group(Api.Api, "platforms", (handlers) =>
  Effect.map(
    platformCall,
    (call) =>
      Catalogue.platforms.reduce(
        (h, p) => h.handleRaw(p.id, ({ request }) => call(p.id, request)),
        handlers as unknown as AnyHandlers
      ) as unknown as HttpApiBuilder.Handlers<never, never, never>
  )
)

/** A path under /api/v1/platforms/ that is no platform: the domain answers it (404 `unknown_platform`). */
export const unknownPlatformLayer = HttpApiBuilder.group(Api.Served, "unknownPlatform", (handlers) =>
  Effect.map(platformCall, (call) => handlers.handleRaw("call", ({ path, request }) => call(path.platform, request)))
)

/** The account group: the balance (D7). */
export const accountLayer = HttpApiBuilder.group(Api.Api, "account", (handlers) =>
  Effect.map(Calls.Calls, (calls) =>
    handlers.handle("balance", () =>
      Effect.gen(function* () {
        const caller = yield* Security.CurrentCaller
        return { creditsRemaining: yield* calls.balance(caller), ...versions }
      })
    )
  )
)

/** Every handler of op calls and the balance. */
export const layer = Layer.mergeAll(platformsLayer, unknownPlatformLayer, accountLayer)
