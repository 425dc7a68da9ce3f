// The published request JSON Schemas and the server's decoding agree (D5, D13): requests generated from each op's
// own Schema pass its published JSON Schema and are accepted; breaking one published constraint is refused with a
// 400 naming that field, and the JSON Schema refuses it too. Requests.decode is exactly what the server runs on the
// body of POST /api/v1/platforms/{platform} before anything is quoted.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue, Examples, Requests } from "@pdr/domain"
import * as Testing from "@pdr/domain/Testing"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import { Effect, Either, FastCheck as fc, Option, Schema } from "effect"
import * as Api from "../src/Api.js"

const formats = addFormatsModule as unknown as { default?: (ajv: Ajv2020) => unknown }
const addFormats = (formats.default ?? (addFormatsModule as unknown as (ajv: Ajv2020) => unknown)) as (
  ajv: Ajv2020
) => unknown
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)

const ops = Catalogue.platforms.flatMap((p) => p.ops)

const decode = (op: Catalogue.OpDef, request: unknown) =>
  Effect.runSync(Effect.either(Requests.decode(op.platform, { request })))

describe("published request Schemas and the server agree", () => {
  for (const op of ops) {
    const published = ajv.compile(Catalogue.requestJsonSchema(op) as object)
    const arbitrary = Testing.arbitrary(op)

    it(`${op.platform} ${op.name}: generated requests: the published schema and the server agree`, () => {
      let accepted = 0
      fc.assert(
        fc.property(arbitrary, (raw) => {
          const request = Testing.repaired(op, raw)
          const server = Either.isRight(decode(op, request))
          const schema = published(request)
          if (schema !== server) {
            throw new Error(
              `schema ${schema ? "accepts" : "refuses"}, server ${server ? "accepts" : "refuses"}: ${JSON.stringify(request)} ${ajv.errorsText(published.errors)}`
            )
          }
          if (server) accepted++
        }),
        { numRuns: op.requestRule ? 150 : 25 }
      )
      // the struct rules (exactly one form, dates both or neither) are not in the generator: most requests are valid
      assert.isAbove(accepted, op.requestRule ? 0 : 5)
    })

    it(`${op.platform} ${op.name}: breaking one published constraint is refused by both, naming the field`, () => {
      const base = Examples.minimal(op, "known")
      const breaks = Testing.breaks(Catalogue.requestJsonSchema(op), base)
      for (const [field, value] of breaks) {
        const request = { ...base, [field]: value }
        assert.isFalse(published(request), `${op.platform} ${op.name} ${field}=${JSON.stringify(value)}: schema`)
        const refused = decode(op, request)
        assert.isTrue(Either.isLeft(refused), `${op.platform} ${op.name} ${field}: server refuses`)
        if (Either.isLeft(refused) && refused.left._tag === "InvalidRequest") {
          assert.isTrue(
            refused.left.details.some((d) => Testing.names(d.path, field)),
            `${op.platform} ${op.name}: 400 names request.${field}: ${JSON.stringify(refused.left.details)}`
          )
        }
      }
    })
  }
})

// One envelope definition (issue 18): each platform's endpoint takes the domain's Schema of its body as its payload,
// the same Struct (`Envelope.of`) the server decodes every call with; what the server accepts, the payload accepts, and
// an envelope the payload refuses, the server refuses too, naming the member.
describe("the endpoint's payload is the envelope the server decodes", () => {
  const payloadOf = (id: string): unknown => {
    const endpoint = Object.values(Api.PlatformsGroup.endpoints).find((e) => e.name === id)
    return endpoint === undefined ? undefined : Option.getOrUndefined<unknown>(endpoint.payloadSchema)
  }

  it("every platform's endpoint payload is Requests.payload of the platform", () => {
    for (const p of Catalogue.platforms) assert.strictEqual(payloadOf(p.id), Requests.payload(p), p.id)
  })

  for (const p of Catalogue.platforms) {
    const accepts = Schema.is(Requests.payload(p))
    it(`${p.id}: a request the server accepts passes the payload; a malformed envelope fails both, naming its member`, () => {
      for (const op of p.ops) {
        fc.assert(
          fc.property(Testing.arbitrary(op), fc.boolean(), (raw, estimateOnly) => {
            const body = { request: Testing.repaired(op, raw), estimateOnly }
            const server = Effect.runSync(Effect.either(Requests.decode(p.id, body)))
            if (Either.isRight(server)) assert.isTrue(accepts(body), JSON.stringify(body))
          }),
          { numRuns: 10 }
        )
        // the payload decides first: any envelope it refuses (wrong member values, unknown members, a request as
        // generated, unrepaired), the server refuses too; what it accepts, the op's Schema then decodes (the rules a
        // Schema's encoded side cannot state, a trimmed subject that must not be empty, are the decode's)
        fc.assert(
          fc.property(
            Testing.arbitrary(op),
            fc.record(
              {
                estimateOnly: fc.oneof(fc.boolean(), fc.string(), fc.constant(null)),
                maxCredits: fc.oneof(fc.nat(), fc.integer({ min: -5, max: -1 }), fc.double(), fc.string()),
                maxAgeSeconds: fc.oneof(fc.nat(), fc.constant(-1), fc.constant(1.5)),
                forceFresh: fc.oneof(fc.boolean(), fc.constant(0)),
                extra: fc.constant(1)
              },
              { requiredKeys: [] }
            ),
            (raw, members) => {
              const body = { request: raw, ...members }
              const server = Effect.runSync(Effect.either(Requests.decode(p.id, body)))
              if (!accepts(body)) assert.isTrue(Either.isLeft(server), JSON.stringify(body))
            }
          ),
          { numRuns: 25 }
        )
        const request = Examples.minimal(op, "known")
        assert.isTrue(accepts({ request }), `${p.id} ${op.name}: its example`)
        const malformed: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
          ["extra", { request, extra: 1 }],
          ["maxCredits", { request, maxCredits: -1 }],
          ["estimateOnly", { request, estimateOnly: "yes" }],
          ["request", { estimateOnly: true }]
        ]
        for (const [member, body] of malformed) {
          assert.isFalse(accepts(body), `${p.id} ${op.name} ${member}: payload`)
          const refused = Effect.runSync(Effect.either(Requests.decode(p.id, body)))
          assert.isTrue(
            Either.isLeft(refused) &&
              refused.left._tag === "InvalidRequest" &&
              refused.left.details.some((d) => d.path === member),
            `${p.id} ${op.name} ${member}: server`
          )
        }
      }
    })
  }
})
