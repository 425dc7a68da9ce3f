// A plan and units for the call modules' tests, over real catalogue ops.
import { Catalogue, Pricing } from "../src/index.js"
import type { Plan, Unit } from "../src/Plan.js"
import type { Measurement, Reveal } from "../src/ports/Measurements.js"

/** The catalogue op, which must exist. */
export const opOf = (platform: string, name: string): Catalogue.OpDef => {
  const op = Catalogue.findOp(platform, name)
  if (op === undefined) throw new Error(`no op ${platform}/${name}`)
  return op
}

/** A plan of these units of this op. */
export const planOf = (op: Catalogue.OpDef, units: ReadonlyArray<Unit> = []): Plan => ({
  op,
  request: { op: op.name } as unknown as Catalogue.OpRequest,
  units,
  quote: 0,
  store: undefined,
  sourcePrice: undefined
})

/** A unit for this subject (or query), with what is stored and held. */
export const unitOf = (
  label: Unit["label"],
  options: {
    readonly asked?: number
    readonly stored?: Measurement
    readonly buy?: ReadonlyArray<"email" | "phone">
    readonly held?: ReadonlyArray<Reveal>
  } = {}
): Unit => ({
  label,
  entity: "subject" in label ? label.subject : `query:${label.query}`,
  freshnessKey: "k",
  asked: options.asked ?? 10,
  stored: options.stored,
  buy: options.buy ?? [],
  held: options.held ?? [],
  price: Pricing.zero
})
