/** `GET /api/v1/platforms`: the public catalogue (D13), computed once. */
import { HttpApiBuilder } from "@effect/platform"
import { Catalogue, Examples, Upstream } from "@pdr/domain"
import { Api } from "@pdr/http-api"
import { Effect } from "effect"
import { engineVersion } from "../Version.js"

/** The catalogue group's handlers. */
export const layer = HttpApiBuilder.group(Api.Api, "catalogue", (handlers) =>
  Effect.gen(function* () {
    const upstream = yield* Upstream.Upstream
    // the explore sources served now are read once, at start (D19)
    const sources = yield* upstream.exploreSources().pipe(
      Effect.tapError((e) => Effect.logWarning("explore sources unavailable", e.detail)),
      Effect.orElseSucceed(() => [])
    )
    const body = {
      platforms: Catalogue.publish(sources, upstream.servedBy, (op, source) => {
        const served = upstream.servedBy?.(op.platform, op.name)
        return Examples.minimal(
          op,
          source,
          served?.store,
          Object.keys(served?.requires ?? {}),
          Object.keys(served?.refuses ?? {})
        )
      }),
      contextVersion: Api.contextVersion,
      engineVersion
    }
    return handlers.handle("platforms", () => Effect.succeed(body as never))
  })
)
