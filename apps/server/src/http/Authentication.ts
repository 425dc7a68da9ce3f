/**
 * The Authentication middleware: one indexed read per request, no cache that could outlive a revocation (D6);
 * the per-key rate limit with the draft-10 RateLimit headers, its token taken by the same read when the buckets are
 * kept with the keys (issue 22), and the stricter limit on failed authentications per client address, checked before
 * the key is (so a blocked address learns nothing about keys) (D12).
 */
import { HttpServerRequest } from "@effect/platform"
import { Keys, RateLimits } from "@pdr/domain"
import { Security } from "@pdr/http-api"
import { Effect, Layer } from "effect"
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

/** The middleware's implementation. */
export const layer = Layer.effect(
  Security.Authentication,
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
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
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
      )
    }) as never
  })
)
