/**
 * The shape of the typed Promise client of the public API (`@pdr/client`, branch i9c) that the MCP server calls
 * through: the only way this package reaches the service (no second path into the core).
 */

/** One op as `GET /api/v1/platforms` publishes it. */
export interface CatalogueOp {
  readonly op: string
  readonly description: string
  readonly price: {
    readonly rule: string
    readonly startingPrice: number
    readonly rows: number | null
    readonly parts?: Readonly<Record<string, number>>
  }
  readonly freshnessSeconds: number | null
  readonly available: boolean
  readonly units: "subjects" | "subject" | "query"
  readonly subjects: string | null
  readonly metrics?: ReadonlyArray<string>
  readonly requestSchema: unknown
}

/** `GET /api/v1/platforms`. */
export interface CatalogueResponse {
  readonly platforms: ReadonlyArray<{
    readonly platform: string
    readonly description: string
    readonly ops: ReadonlyArray<CatalogueOp>
  }>
}

/** `GET /api/v1/balance`. */
export interface BalanceResponse {
  readonly creditsRemaining: number
}

/** One unit of work of an answer (D4). */
export interface CoverageItem {
  readonly subject?: string
  readonly query?: string
  readonly status: "fetched" | "stored" | "omitted" | "fetch"
  readonly measuredAt: string | null
  readonly rows: number
  readonly credits: number
  readonly source: string | null
  readonly reason?: string
  readonly detail?: string
}

/** An op answer (D4). */
export interface OpResponse {
  readonly data: ReadonlyArray<unknown>
  readonly cost: { readonly creditsCharged: number; readonly creditsRemaining: number }
  readonly coverage: ReadonlyArray<CoverageItem>
  readonly estimate?: { readonly credits: number; readonly fitsMaxCredits?: boolean }
  readonly requestId: string
}

/** A D5 error. */
export interface ApiError {
  readonly code: string
  readonly message: string
  readonly requestId: string
  readonly details?: unknown
}

/** What every client method resolves to: never a rejection for an HTTP error. */
export type Result<T> =
  | {
      readonly ok: true
      readonly status: number
      readonly value: T
      readonly requestId: string
      readonly headers: unknown
    }
  | {
      readonly ok: false
      readonly status: number
      readonly error: ApiError
      readonly requestId: string
      readonly headers: unknown
    }

/** Options of one op call. */
export interface CallOptions {
  readonly estimateOnly?: boolean
  readonly maxCredits?: number
  readonly idempotencyKey?: string
}

/** The client methods the MCP server uses. */
export interface PdrClient {
  readonly catalogue: () => Promise<Result<CatalogueResponse>>
  readonly balance: () => Promise<Result<BalanceResponse>>
  readonly call: (
    platform: string,
    request: Record<string, unknown>,
    options?: CallOptions
  ) => Promise<Result<OpResponse>>
}

/** Makes a client for one API key. */
export type MakeClient = (options: { readonly baseUrl: string; readonly apiKey: string }) => PdrClient
