/** The Authentication middleware: one indexed read per request, no cache that could outlive a revocation (D6). */
import { HttpServerRequest } from "@effect/platform"
import { Keys } from "@pdr/domain"
import { Security } from "@pdr/http-api"
import { Effect, Layer } from "effect"
import * as ApiErrors from "./ApiErrors.js"

const header = (headers: Readonly<Record<string, string | undefined>>, name: string) => headers[name]

/** The middleware's implementation. */
export const layer = Layer.effect(
  Security.Authentication,
  Effect.gen(function* () {
    const keys = yield* Keys.Keys
    return Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const caller = yield* keys
        .authenticate({
          apiKey: header(request.headers, "x-api-key"),
          authorization: header(request.headers, "authorization")
        })
        .pipe(Effect.catchTag("Unauthorized", (e) => ApiErrors.fail(401, "unauthorized", e.message)))
      yield* keys.recordCall(caller.keyId)
      return caller
    }) as never
  })
)
