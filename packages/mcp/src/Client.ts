/**
 * The API as the MCP server sees it: `@pdr/client`, the typed Promise client of the public API, is the only way this
 * package reaches the service (no second path into the core). The names below are that client's own types.
 */
import type { BalanceResponse, CatalogueResponse, Client, OpResponseOf, Platform, Result } from "@pdr/client"

export { ContractSchemas, createClient, retryAfterMs } from "@pdr/client"
export type { BalanceResponse, CatalogueResponse, Result }

/** The client the tools call through. */
export type PdrClient = Client

/** One op as the catalogue publishes it. */
export type CatalogueOp = CatalogueResponse["platforms"][number]["ops"][number]

/** An op answer (D4). */
export type OpResponse = OpResponseOf<Platform>

/** One unit of work of an answer (D4). */
export type CoverageItem = OpResponse["coverage"][number]

/** A D5 error as the tools read it: any endpoint's code, its details whatever their shape. */
export interface ApiError {
  readonly code: string
  readonly message: string
  readonly requestId: string
  readonly details?: unknown
}

/**
 * A call whose platform and request the model chose at run time: the platform was checked against the catalogue, and
 * the API validates the request itself (its 400 names the field), so the static per-op types cannot apply here.
 */
export const dynamicCall = (
  client: PdrClient,
  platform: string,
  request: Readonly<Record<string, unknown>>,
  options?: Parameters<PdrClient["call"]>[2]
): Promise<Result<OpResponse>> =>
  client.call(platform as Platform, request as never, options) as Promise<Result<OpResponse>>

/** A call chosen at run time, answered asynchronously: 202s followed to the answer, `signal` cancels (issue 21). */
export const dynamicCallAsync = (
  client: PdrClient,
  platform: string,
  request: Readonly<Record<string, unknown>>,
  options?: Parameters<PdrClient["callAsync"]>[2]
): Promise<Result<OpResponse>> =>
  client.callAsync(platform as Platform, request as never, options) as Promise<Result<OpResponse>>
