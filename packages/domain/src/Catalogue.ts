/**
 * The catalogue: the 16 platforms and 70 ops of the specification (completed by D14), each with its kind, request
 * Schema, price rule (D1), freshness window (D2), availability (D11), subject forms (D3) and history metrics (D9).
 * Every other package reads prices, bounds and windows from here. The model is `catalogue/Model.ts` (facets in
 * `catalogue/Facets.ts`), the data one module per platform under `catalogue/platforms/`, publishing
 * `catalogue/Publish.ts`.
 */
export type {
  Facets,
  HistoryScope,
  OpDef,
  OpInput,
  OpRequest,
  PlatformDef,
  UnitShape
} from "./catalogue/Model.js"
export { runsSource } from "./catalogue/Model.js"
export {
  findOp,
  findPlatform,
  historyOp,
  type OpPath,
  pathOf,
  platforms,
  type TypedPlatform,
  typed
} from "./catalogue/Platforms.js"
export { type PublishedSource, publish, requestJsonSchema } from "./catalogue/Publish.js"
