// The WHATWG URL API is a global of every runtime the domain runs on; declared here so the domain compiles
// without DOM or Node types (which would let it reach for platform APIs).
declare class URLSearchParams {
  constructor(init?: ReadonlyArray<readonly [string, string]> | string)
  get(name: string): string | null
  entries(): IterableIterator<[string, string]>
  toString(): string
}
declare class URL {
  constructor(input: string, base?: string)
  readonly host: string
  readonly hostname: string
  readonly origin: string
  readonly pathname: string
  readonly protocol: string
  readonly search: string
  readonly searchParams: URLSearchParams
}
