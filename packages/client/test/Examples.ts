// The README's client examples, type-checked by `tsc` (the package's `check`) so that the README cannot drift from
// the clients. Never run.
import { Effect } from "effect"
import * as PdrClient from "../src/effect.js"
import { createClient } from "../src/index.js"

export const promiseExample = async () => {
  const pdr = createClient({ baseUrl: "http://127.0.0.1:8080", apiKey: process.env["PDR_KEY"]! })
  const r = await pdr.call("maps", { op: "places", subjects: ["ChIJ..."] }, { maxCredits: 10 })
  if (r.ok) return r.value.data[0]?.rating // rows typed per op; a misspelt op or field does not compile
  return r.error.code // the D5 codes of that endpoint
}

export const effectExample = (apiKey: string) =>
  Effect.gen(function* () {
    const client = yield* PdrClient.make({ baseUrl: "http://127.0.0.1:8080", apiKey })
    const places = yield* PdrClient.call(client, "maps", { op: "places", subjects: ["ChIJ..."] }, { maxCredits: 10 })
    return places.data[0]?.rating // a places row; `reviewId` (a reviews field) does not compile
  }).pipe(Effect.catchTag("InsufficientCredits", (e) => Effect.succeed(e.error.details)))
