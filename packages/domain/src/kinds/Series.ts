/** Series (D9): a stored series read back; never quoted, held, fetched or billed. */
import * as History from "../History.js"
import type { Reads } from "./Steps.js"

/** The steps of a series read. */
export const steps: Reads = { _tag: "Reads", answer: History.answer }
