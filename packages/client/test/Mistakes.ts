// Deliberate mistakes against both clients: each line under `@ts-expect-error` must fail to compile, and `tsc` (the
// package's `check`) fails if one of them ever compiles. Never run; only type-checked.
import { Effect } from "effect"
import * as PdrClient from "../src/effect.js"
import { createClient } from "../src/index.js"

export const promiseMistakes = async () => {
  const client = createClient({ baseUrl: "http://127.0.0.1:8080", apiKey: "key_live_x" })
  // @ts-expect-error misspelt op
  await client.call("maps", { op: "palces", subjects: ["x"] })
  // @ts-expect-error misspelt platform
  await client.call("mapz", { op: "places", subjects: ["x"] })
  // @ts-expect-error missing required field (subjects)
  await client.call("maps", { op: "places" })
  // @ts-expect-error missing required field of a query op (location)
  await client.call("maps", { op: "search", query: "coffee" })
  // @ts-expect-error out-of-range enum value
  await client.call("maps", { op: "search", query: "coffee", location: "Paris", minRating: "5" })
  // @ts-expect-error subjects as a string instead of a list
  await client.call("maps", { op: "places", subjects: "x" })
  // @ts-expect-error a field the op does not have
  await client.call("maps", { op: "places", subjects: ["x"], pages: 2 })
  // @ts-expect-error estimateOnly belongs to the call options, not to the request
  await client.call("maps", { op: "places", subjects: ["x"], estimateOnly: true })
  const places = await client.call("maps", { op: "places", subjects: ["x"] })
  if (places.ok) {
    // the answer's rows are narrowed to the op called (a history row has no `rating`): this line must compile
    const rating: number | null | undefined = places.value.data[0]?.rating
    void rating
    // @ts-expect-error wrong row field read (the row has `rating`)
    places.value.data[0]?.ratings
    // @ts-expect-error a reviews row field read on a places answer
    places.value.data[0]?.reviewId
    // @ts-expect-error wrong envelope field read
    places.value.cost.creditsCharge
  } else {
    // @ts-expect-error wrong error code (misspelt)
    if (places.error.code === "insufficent_credits") return
    // @ts-expect-error an error code this endpoint never answers (operator API only)
    if (places.error.code === "forbidden") return
  }
  const history = await client.call("maps", { op: "history", subjects: ["x"], metric: "rating" })
  // a history answer's rows are series (named `maps.history.Row` in the document): this line must compile
  if (history.ok) void history.value.data[0]?.points.length
  // @ts-expect-error a metric the op does not have
  await client.call("maps", { op: "history", subjects: ["x"], metric: "followers" })
  const balance = await client.balance()
  // @ts-expect-error wrong field of the balance answer
  if (balance.ok) balance.value.credits
  // @ts-expect-error maxCredits is a number
  await client.call("maps", { op: "places", subjects: ["x"] }, { maxCredits: "10" })

  // issue 23: explore run's input is an object of JSON values: this must compile
  await client.call("explore", {
    op: "run",
    source: "synthetic/app-charts",
    input: { country: "US", top: [1, 2], deep: { on: true } }
  })
  // @ts-expect-error the input is an object, not a string
  await client.call("explore", { op: "run", source: "synthetic/app-charts", input: "country=US" })
  // issue 23: an error's details narrow by its code
  const paid = await client.call("maps", { op: "places", subjects: ["x"] }, { maxCredits: 5 })
  if (!paid.ok) {
    if (paid.error.code === "insufficient_credits") {
      // the quote and what is spendable: this must compile, with no cast
      const short: number = paid.error.details.required - paid.error.details.available
      void short
      // @ts-expect-error an insufficient_credits error has no maxCredits (that is quote_above_max_credits)
      void paid.error.details.maxCredits
    }
    if (paid.error.code === "quote_above_max_credits") {
      const cap: number = paid.error.details.maxCredits
      void cap
    }
    if (paid.error.code === "invalid_request") {
      // every offending field, named
      const paths: ReadonlyArray<string> = paid.error.details.map((d) => d.path)
      void paths
    }
  }
}

export const effectMistakes = Effect.gen(function* () {
  const client = yield* PdrClient.make({ baseUrl: "http://127.0.0.1:8080", apiKey: "key_live_x" })
  // the derived client: one method per platform
  // @ts-expect-error misspelt platform
  yield* client.platforms.mapz({ payload: { request: { op: "places", subjects: ["x"] } }, headers: {} })
  // @ts-expect-error misspelt op
  yield* client.platforms.maps({ payload: { request: { op: "palces", subjects: ["x"] } }, headers: {} })
  // @ts-expect-error missing required field (subjects)
  yield* client.platforms.maps({ payload: { request: { op: "places" } }, headers: {} })
  const search = { op: "search", query: "q", location: "l" } as const
  // @ts-expect-error out-of-range enum value
  yield* client.platforms.maps({ payload: { request: { ...search, minRating: "5" } }, headers: {} })
  // @ts-expect-error subjects as a string instead of a list
  yield* client.platforms.maps({ payload: { request: { op: "places", subjects: "x" } }, headers: {} })
  // @ts-expect-error an op of another platform
  yield* client.platforms.maps({ payload: { request: { op: "profiles", subjects: ["x"] } }, headers: {} })
  const answer = yield* client.platforms.maps({ payload: { request: { op: "places", subjects: ["x"] } }, headers: {} })
  // @ts-expect-error wrong envelope field read
  answer.cost.creditsCharge
  // @ts-expect-error wrong coverage status
  if (answer.coverage[0]?.status === "cached") return
  // @ts-expect-error wrong row field read (no row of any maps op has it)
  answer.data[0]?.ratings

  // the typed call: the answer's rows are those of the op called
  // @ts-expect-error misspelt op
  yield* PdrClient.call(client, "maps", { op: "palces", subjects: ["x"] })
  // @ts-expect-error a field the op does not have
  yield* PdrClient.call(client, "maps", { op: "places", subjects: ["x"], pages: 2 })
  // @ts-expect-error maxCredits is a number
  yield* PdrClient.call(client, "maps", { op: "places", subjects: ["x"] }, { maxCredits: "10" })
  const places = yield* PdrClient.call(client, "maps", { op: "places", subjects: ["x"] })
  // narrowed to the op called (a history row has no `rating`): this line must compile
  const rating: number | null | undefined = places.data[0]?.rating
  void rating
  // @ts-expect-error a reviews row field read on a places answer
  places.data[0]?.reviewId
  // @ts-expect-error wrong row field read (the row has `rating`)
  places.data[0]?.ratings
  const history = yield* PdrClient.call(client, "maps", { op: "history", subjects: ["x"], metric: "rating" })
  // @ts-expect-error a metric the op does not have
  if (history.data[0]?.metric === "followers") return

  const balance = yield* client.account.balance().pipe(
    // @ts-expect-error misspelt error tag (the D5 errors are tagged per code: InsufficientCredits)
    Effect.catchTag("InsuficientCredits", () => Effect.succeed(null))
  )
  // @ts-expect-error wrong field of the balance answer
  balance?.credits
  const caught = yield* PdrClient.call(client, "maps", { op: "places", subjects: ["x"] }).pipe(
    Effect.map((a) => a.data[0]?.rating),
    Effect.catchTag("InsufficientCredits", (e) => Effect.succeed(e.error.code))
  )
  // @ts-expect-error the error code of a tag is its literal, not another code
  if (caught === "quote_above_max_credits") return
  yield* PdrClient.call(client, "maps", { op: "places", subjects: ["x"] }).pipe(
    // @ts-expect-error misspelt error tag on an op call
    Effect.catchTag("QuoteAboveMaxCredit", () => Effect.succeed(null))
  )
  // @ts-expect-error the rating or the error code, not a row
  caught.placeId

  // issue 23: each endpoint's error union holds only what it answers
  yield* client.account.balance().pipe(
    // @ts-expect-error the balance never answers 402 insufficient_credits
    Effect.catchTag("InsufficientCredits", () => Effect.succeed(null))
  )
  yield* client.platforms.maps({ payload: { request: { op: "places", subjects: ["x"] } }, headers: {} }).pipe(
    // @ts-expect-error an op call never answers 403 forbidden (the dashboard's)
    Effect.catchTag("Forbidden", () => Effect.succeed(null))
  )
  yield* PdrClient.cancel(client, "call_x").pipe(
    Effect.catchTag("CallFinished", (e) => Effect.succeed(e.error.details?.status))
  )
  yield* PdrClient.call(client, "maps", { op: "places", subjects: ["x"] }).pipe(
    // an unknown op forced past the types fails as UnknownOp (and the call's union holds it)
    Effect.catchTag("UnknownOp", (e) => Effect.succeed(e.error.details?.[0]?.path))
  )
  // issue 23: details typed per code in the Effect client
  yield* PdrClient.call(client, "maps", { op: "places", subjects: ["x"] }).pipe(
    Effect.catchTag("InsufficientCredits", (e) => Effect.succeed(e.error.details?.available)),
    Effect.catchTag("QuoteAboveMaxCredits", (e) =>
      // @ts-expect-error a quote_above_max_credits error has no `available`
      Effect.succeed(e.error.details?.available)
    )
  )
  // issue 23: explore run's input is an object of JSON values in the Effect client too
  yield* PdrClient.call(client, "explore", {
    op: "run",
    source: "synthetic/app-charts",
    input: { country: "US", n: [1] }
  })
  // @ts-expect-error the input is an object, not a string
  yield* PdrClient.call(client, "explore", { op: "run", source: "synthetic/app-charts", input: "country=US" })

  const admin = yield* PdrClient.makeAdmin({ baseUrl: "http://127.0.0.1:8081", token: "op_x" })
  // @ts-expect-error missing required field (name)
  yield* admin.accounts.create({ payload: { credits: 5 } })
  // @ts-expect-error credits is a number
  yield* admin.credits.grant({ path: { accountId: "acct_x" }, payload: { credits: "5", reason: "r" } })
  // @ts-expect-error wrong path parameter (revoke takes a keyId)
  yield* admin.keys.revoke({ path: { accountId: "acct_x" } })
  const account = yield* admin.accounts.show({ path: { accountId: "acct_x" } })
  // @ts-expect-error wrong field read (balance)
  account.balanse
  // @ts-expect-error ledger kinds are grant and capture
  if (account.ledger[0]?.kind === "refund") return
})

// Not expressible in TypeScript types: numeric bounds (`pages: 99` where the maximum is 5) and string lengths; the
// server's 400 names the field.
