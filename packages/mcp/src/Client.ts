/**
 * The API as the MCP server sees it: `@pdr/client`, the typed Promise client of the public API, is the only way this
 * package reaches the service (no second path into the core). The names below are that client's own types.
 */
import type { BalanceResponse, CatalogueResponse, Client, ErrorBody, OpResponseOf, Result } from "@pdr/client"

export { createClient } from "@pdr/client"
export type { BalanceResponse, CatalogueResponse, Result }

/** The client the tools call through. */
export type PdrClient = Client

/** One op as the catalogue publishes it. */
export type CatalogueOp = CatalogueResponse["platforms"][number]["ops"][number]

/** An op answer (D4). */
export type OpResponse = OpResponseOf<string>

/** One unit of work of an answer (D4). */
export type CoverageItem = OpResponse["coverage"][number]

/** A D5 error. */
export type ApiError = ErrorBody["error"]
