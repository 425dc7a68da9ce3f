/** `POST /api/v1/platforms/{platform}` and `GET /api/v1/balance`: each handler calls one domain service. */
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Calls } from "@pdr/domain"
import { Api, Security } from "@pdr/http-api"
import { Effect, FiberRef } from "effect"
import * as RequestId from "../RequestId.js"
import { engineVersion } from "../Version.js"
import * as ApiErrors from "./ApiErrors.js"

const jsonType = /^application\/([\w.+-]+\+)?json\s*(;|$)/i

const versions = { contextVersion: Api.contextVersion, engineVersion }

/** The ops group's handlers. */
export const layer = HttpApiBuilder.group(Api.Api, "ops", (handlers) =>
  Effect.gen(function* () {
    const calls = yield* Calls.Calls
    return handlers
      .handle("call", ({ path, payload }) =>
        Effect.gen(function* () {
          const caller = yield* Security.CurrentCaller
          const contentType = (yield* HttpServerRequest.HttpServerRequest).headers["content-type"]
          if (contentType !== undefined && !jsonType.test(contentType)) {
            return yield* ApiErrors.fail(
              415,
              "unsupported_media_type",
              `the body must be application/json, not ${contentType}`
            )
          }
          const answer = yield* calls
            .call(caller, path.platform, payload)
            .pipe(Effect.catchAll(ApiErrors.fromCallError))
          const requestId = yield* FiberRef.get(RequestId.current)
          return { ...answer, requestId, ...versions } as never
        })
      )
      .handle("balance", () =>
        Effect.gen(function* () {
          const caller = yield* Security.CurrentCaller
          return { creditsRemaining: yield* calls.balance(caller), ...versions }
        })
      )
  })
)
