/**
 * The Authentication middleware: one indexed read per request, no cache that could outlive a revocation (D6);
 * the per-key rate limit with the draft-10 RateLimit headers, its token taken by the same read when the buckets are
 * kept with the keys (issue 22), and the stricter limit on failed authentications per client address, checked before
 * the key is (so a blocked address learns nothing about keys) (D12).
 */
import { HttpServerRequest } from "@effect/platform"
import { Keys, RateLimits } from "@pdr/domain"
import { Security } from "@pdr/http-api"
import { Context, Effect, Layer } from "effect"
import * as RequestId from "../RequestId.js"
import * as ApiErrors from "./ApiErrors.js"
import * as Discovery from "./Discovery.js"
import * as Forwarding from "./Forwarding.js"

const limitHeaders = (policy: RateLimits.Policy, decision: RateLimits.Decision) => {
  const headers: Record<string, string> = {
    "ratelimit-policy": RateLimits.policyHeader(policy),
    ratelimit: RateLimits.stateHeader(policy, decision)
  }
  if (!decision.allowed) headers["retry-after"] = String(Math.max(1, decision.resetSeconds))
  return headers
}

/**
 * The middleware's effect as a function of the request (issue 22): the op calls answered from node's `request` event
 * (Fallback.fastLayer) run it with their request object, without the request in the fiber's context.
 */
export class Authenticate extends Context.Tag("@pdr/server/Authenticate")<
  Authenticate,
  (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Keys.Caller, unknown>
>() {}

const authenticateLayer = Layer.effect(
  Authenticate,
  Effect.gen(function* () {
    const keys = yield* Keys.Keys
    const limits = yield* RateLimits.RateLimits
    const rateLimited = ApiErrors.fail(
      "rate_limited",
      "rate limit of this key reached; retry after Retry-After seconds",
      {
        limit: limits.perKey.policy
      }
    )
    const blocked = ApiErrors.fail(
      "rate_limited",
      "too many failed authentications from this address; retry after Retry-After seconds"
    )
    // issue 22: a chain of flatMaps rather than a generator (every request passes here: fewer steps and allocations)
    return (request: HttpServerRequest.HttpServerRequest) => {
      const address = Forwarding.clientAddress(request)
      return Effect.flatMap(limits.failedAuth.peek(address), (gate) =>
        !gate.allowed
          ? Effect.zipRight(RequestId.addHeaders(limitHeaders(limits.failedAuth.policy, gate)), blocked)
          : // the key's read and its token in one round trip when the buckets are kept with the keys (issue 22)
            keys
              .admit(
                { apiKey: request.headers["x-api-key"], authorization: request.headers["authorization"] },
                limits.perKey
              )
              .pipe(
                Effect.catchTag("Unauthorized", (e) =>
                  limits.failedAuth.take(address).pipe(
                    // RFC 9728 §5.1: the 401 names where to learn how to sign in (issue 23)
                    Effect.zipRight(RequestId.addHeaders({ "www-authenticate": Discovery.challenge(request, "") })),
                    Effect.zipRight(ApiErrors.fromDomain(e))
                  )
                ),
                Effect.flatMap(({ caller, decision }) =>
                  Effect.zipRight(
                    RequestId.update((state) => {
                      state.keyId = caller.keyId
                      Object.assign(state.headers, limitHeaders(limits.perKey.policy, decision))
                    }),
                    decision.allowed ? Effect.as(keys.recordCall(caller.keyId), caller) : rateLimited
                  )
                )
              )
      ) as Effect.Effect<Keys.Caller, unknown>
    }
  })
)

/** The middleware's implementation (the same effect, the request read from the fiber's context), and `Authenticate`. */
export const layer = Layer.effect(
  Security.Authentication,
  Effect.map(Authenticate, (authenticate) => Effect.flatMap(HttpServerRequest.HttpServerRequest, authenticate) as never)
).pipe(Layer.provideMerge(authenticateLayer))
