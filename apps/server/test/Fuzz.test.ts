// Fuzzing over a real socket: at least 5,000 generated bodies per run (valid ones built from each op's Schema,
// near-valid mutations of them, and garbage) never get a 5xx (other than the decided 503 op_unavailable of the
// unavailable explore ops), and credits move only by what 200 answers say they charged. The seed is printed.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Catalogue, Examples } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { FastCheck as fc } from "effect"
import { account, balance, type Running, request, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()
const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31)
const runs = Number(process.env["FUZZ_RUNS"] ?? 5000)

type Json = Record<string, any>
const ops = Catalogue.platforms.flatMap((p) => p.ops)
const schemaOf = new Map(ops.map((o) => [o, Catalogue.requestJsonSchema(o) as unknown as Json]))

/** A valid request: the op's minimal request with every optional field drawn within its published bounds. */
const valid = fc.constantFrom(...ops).chain((op) => {
  const props = schemaOf.get(op)!["properties"] as Record<string, Json>
  const fields: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [name, prop] of Object.entries(props)) {
    if (Array.isArray(prop["enum"]) && name !== "op") fields[name] = fc.constantFrom(...prop["enum"])
    else if (prop["type"] === "integer")
      fields[name] = fc.integer({ min: prop["minimum"] ?? 0, max: Math.min(prop["maximum"] ?? 1000, 1000) })
  }
  const max = Examples.maxSubjects(op)
  return fc
    .record({
      fields: fc.record(fields, { requiredKeys: [] }),
      subjects: fc.array(fc.nat(50), { minLength: 1, maxLength: max }),
      estimateOnly: fc.boolean()
    })
    .map(({ fields, subjects, estimateOnly }) => {
      const request: Json = { ...Examples.minimal(op, "synthetic/app-charts"), ...fields }
      if (op.units === "subjects") request["subjects"] = subjects.map((i) => Examples.subject(op, i))
      if (op.platform === "short_video" && op.name === "searchPosts") {
        delete request["hashtag"]
        delete request["soundUrl"]
      }
      return { platform: op.platform, body: { request, ...(estimateOnly ? { estimateOnly } : {}) } as unknown }
    })
})

const weird = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.constant(Number.MAX_SAFE_INTEGER * 4),
  fc.string({ maxLength: 30 }),
  fc.string({ minLength: 300, maxLength: 2000 }),
  fc.array(fc.string(), { maxLength: 20 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 4 }),
  fc.constant({ __proto__: { polluted: true } }),
  fc.constant("https://evil.example/@x/../../etc/passwd")
)

/** A valid request with one thing broken. */
const nearValid = fc.tuple(valid, fc.nat(), weird, fc.nat(7)).map(([v, pick, value, how]) => {
  const body = structuredClone(v.body) as Json
  const keys = Object.keys(body["request"])
  const key = keys[pick % keys.length]!
  switch (how) {
    case 0:
      delete body["request"][key]
      break
    case 1:
      body["request"][key] = value
      break
    case 2:
      body["request"]["unexpected"] = value
      break
    case 3:
      body["estimateOnly"] = value
      break
    case 4:
      return { platform: `${v.platform}${pick % 2 ? "x" : "/../balance"}`, body }
    case 5:
      body["request"] = value
      break
    case 6:
      if (Array.isArray(body["request"]["subjects"]))
        body["request"]["subjects"] = [...body["request"]["subjects"], value]
      else body["request"]["subject"] = value
      break
    default:
      body["request"]["op"] = value
  }
  return { platform: v.platform, body: body as unknown }
})

const garbage = fc.oneof(
  fc.jsonValue().map((body) => ({ platform: "maps", body })),
  fc.string({ maxLength: 200 }).map((raw) => ({ platform: "forum", body: undefined, raw })),
  fc
    .tuple(fc.string({ maxLength: 40 }), fc.jsonValue())
    .map(([platform, body]) => ({ platform: encodeURIComponent(platform), body }))
)

const body = fc.oneof(
  { weight: 4, arbitrary: valid },
  { weight: 4, arbitrary: nearValid },
  { weight: 2, arbitrary: garbage }
)

describe.skipIf(!serverUp)("fuzzing the op endpoint", () => {
  let server: Running
  beforeAll(async () => {
    server = await start()
  }, 60_000)
  afterAll(() => server?.close())

  it(`${runs} generated bodies: never a 5xx, never a charge except by 200 answers (seed printed)`, async () => {
    console.log(`[fuzz] seed=${seed} runs=${runs} (replay: FUZZ_SEED=${seed})`)
    const a = await account(server, 10_000_000, "fuzz")
    const cases = fc.sample(body, { seed, numRuns: runs }) as Array<{ platform: string; body: unknown; raw?: string }>
    let charged = 0
    const statuses = new Map<number, number>()
    let next = 0
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < cases.length) {
          const c = cases[next++]!
          const r = await request(`${server.api}/api/v1/platforms/${c.platform}`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": a.key },
            body: c.raw ?? JSON.stringify(c.body) ?? "null"
          })
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
          if (r.status >= 500) {
            assert.strictEqual(
              r.status,
              503,
              `seed ${seed}: ${r.status} for ${JSON.stringify(c).slice(0, 500)}: ${r.text}`
            )
            assert.strictEqual(r.body.error.code, "op_unavailable")
          }
          if (r.status === 200) charged += r.body.cost.creditsCharged
          else if (r.status !== 404 || r.body) assert.isObject(r.body?.error, `${r.status} has a D5 body: ${r.text}`)
        }
      })
    )
    console.log(`[fuzz] statuses ${JSON.stringify(Object.fromEntries(statuses))}, charged ${charged}`)
    assert.isAtLeast(
      [...statuses.values()].reduce((x, y) => x + y, 0),
      runs
    )
    assert.isAbove(statuses.get(200) ?? 0, runs / 10, "a good share of the bodies were valid calls")
    assert.isAbove(statuses.get(400) ?? 0, runs / 10)
    assert.strictEqual(await balance(server, a.key), 10_000_000 - charged)
  }, 240_000)
})
