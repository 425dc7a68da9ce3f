/** The Promise client of the Platform Data Retrieval API (no Effect in its types). */
export { type CallOptions, type Client, type ClientOptions, createClient, type Result, retryAfterMs } from "./Client.js"
export type { components, paths } from "./generated/openapi.js"
export * as ContractSchemas from "./generated/schemas.js"
export type {
  BalanceResponse,
  CallErrorOf,
  CatalogueResponse,
  ErrorBody,
  OpOf,
  OpRequestOf,
  OpResponseOf,
  Platform,
  RequestOf,
  RowOf
} from "./Types.js"
