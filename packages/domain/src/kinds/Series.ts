/** Series (D9): a stored series read back; never quoted, held, fetched or billed. */
import * as History from "../History.js"
import type { Reads } from "./Steps.js"

/** The variant: a stored series read back (D9): never fetches, never bills. */
export interface Kind {
  readonly _tag: "Series"
}

const reading: Reads = { _tag: "Reads", answer: History.answer }

/** The steps of a series read. */
export const steps = (_: Kind): Reads => reading
