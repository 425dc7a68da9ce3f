// Every op's rows, as the synthetic upstream delivers them, conform to the row Schema the catalogue declares for
// that op (field names, types, formats, nullability; no undeclared field), and every history point it reports is
// the catalogue's metric source applied to its rows (D9).
import { assert, describe, it } from "@effect/vitest"
import { Catalogue, Examples, Requests, Rows, type Upstream } from "@pdr/domain"
import { Effect, Either, ParseResult, Schema, TestClock } from "effect"
import { SyntheticUpstream } from "../src/index.js"

const start = Date.parse("2026-11-21T00:00:00Z")

const unitsFor = (op: Catalogue.OpDef): ReadonlyArray<Upstream.UnitRequest> =>
  [0, 1, 2].map((i) => {
    const minimal = Examples.minimal(op, "synthetic/app-charts") as Record<string, unknown>
    const body: Record<string, unknown> = { ...minimal }
    if (op.subjectSpec && op.units === "subjects") body["subjects"] = [Examples.subject(op, i)]
    if (op.subjectSpec && op.units === "subject") body["subject"] = Examples.subject(op, i)
    if (typeof body["query"] === "string") body["query"] = `${body["query"]} ${i}`
    if ("stay" in op.fields && i === 1) body["stay"] = { checkIn: "2027-01-10", checkOut: "2027-01-12" }
    const request = Effect.runSync(Requests.decode(op.platform, { request: body })).request
    return {
      platform: op.platform,
      op: op.name,
      request,
      subject:
        op.units === "subjects"
          ? (request["subjects"] as Array<string>)[0]
          : op.units === "subject"
            ? String(request["subject"])
            : undefined,
      rows: op.rowsField ? Number(request[op.rowsField]) : 1,
      store: request["store"] ? "store:blr-001" : undefined,
      parts: op.price._tag === "PerPart" ? ["email", "phone"] : undefined
    }
  })

const served = Catalogue.platforms.flatMap((p) => p.ops).filter((o) => o.name !== "history" && o.available)

const problems = (schema: Schema.Schema.AnyNoContext, row: unknown) =>
  Either.match(Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(row), {
    onLeft: (e) => ParseResult.TreeFormatter.formatErrorSync(e),
    onRight: () => null
  })

describe("synthetic rows and the catalogue's row Schemas", () => {
  it.effect("every delivered row of every op conforms to its op's row Schema, and so does its answer row", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const upstream = yield* SyntheticUpstream.make({ ...SyntheticUpstream.defaults, shortLists: false })
      let checked = 0
      for (const op of served) {
        for (const unit of unitsFor(op)) {
          const o = yield* upstream.fetch(unit)
          assert.strictEqual(o._tag, "Delivered", `${op.platform} ${op.name}`)
          if (o._tag !== "Delivered") continue
          for (const row of o.rows) {
            assert.strictEqual(problems(op.delivered!, row), null, `${op.platform} ${op.name} delivered row`)
            if (op.price._tag === "PerPart") continue
            const answerRow = {
              subject: unit.subject ?? "query",
              ...row,
              measuredAt: new Date(start).toISOString(),
              source: o.source,
              ...(op.stored ? {} : { unverified: true })
            }
            assert.strictEqual(problems(op.row, answerRow), null, `${op.platform} ${op.name} answer row`)
            checked++
          }
        }
      }
      assert.isAbove(checked, 500)
    })
  )

  it.effect("every history point is its metric source (row field, aggregate) applied to the delivered rows", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const upstream = yield* SyntheticUpstream.make({ ...SyntheticUpstream.defaults, shortLists: false })
      let checked = 0
      for (const op of served) {
        const sources = Catalogue.historyOp(op.platform)?.metricSources
        if (sources === undefined) continue
        const rowFields = new Set(Object.keys((op.delivered as unknown as Schema.Struct<Schema.Struct.Fields>).fields))
        for (const unit of unitsFor(op)) {
          const o = yield* upstream.fetch(unit)
          if (o._tag !== "Delivered") continue
          for (const point of o.points) {
            for (const metric of Object.keys(point.metrics)) assert.property(sources, metric, `${op.platform} metric`)
            const measured = Object.keys(point.metrics).every((m) => rowFields.has(sources[m]!.field))
            // a point for another entity than the rows' (forum comments: the post's own listing) is not a row's
            if (!measured) continue
            const aggregated = Object.values(sources).some((s) => s.aggregate !== "each")
            if (aggregated) {
              for (const [m, v] of Object.entries(point.metrics))
                assert.strictEqual(v, Rows.measure(sources[m]!, o.rows), `${op.platform} ${m}`)
            } else {
              const matches = o.rows.some((row) =>
                Object.entries(point.metrics).every(([m, v]) => row[sources[m]!.field] === v)
              )
              assert.isTrue(matches, `${op.platform} ${op.name}: point ${JSON.stringify(point)} is a row's fields`)
            }
            checked++
          }
        }
      }
      assert.isAbove(checked, 50)
    })
  )

  it("every history metric names a field of a row Schema of its platform", () => {
    for (const p of Catalogue.platforms) {
      const h = Catalogue.historyOp(p.id)
      if (!h) continue
      assert.deepStrictEqual(Object.keys(h.metricSources!), [...h.metrics!])
      const fields = new Set(
        p.ops.flatMap((o) =>
          o.delivered ? Object.keys((o.delivered as unknown as Schema.Struct<Schema.Struct.Fields>).fields) : []
        )
      )
      for (const [metric, source] of Object.entries(h.metricSources!))
        assert.isTrue(fields.has(source.field), `${p.id} ${metric} -> ${source.field}`)
    }
  })
})
