/** `GET /api/v1/platforms`: the public catalogue (D13), computed once. */
import { HttpApiBuilder } from "@effect/platform"
import { Catalogue } from "@pdr/domain"
import { Api } from "@pdr/http-api"
import { Effect } from "effect"
import { engineVersion } from "../Version.js"

/** The catalogue group's handlers. */
export const layer = HttpApiBuilder.group(Api.Api, "catalogue", (handlers) => {
  const body = { platforms: Catalogue.publish(), contextVersion: Api.contextVersion, engineVersion }
  return handlers.handle("platforms", () => Effect.succeed(body as never))
})
