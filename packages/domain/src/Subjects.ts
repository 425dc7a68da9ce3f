/**
 * Subjects (D3): the forms an op accepts (absolute URLs, handles, bare ids) and their normalization into
 * canonical entity keys, so that two spellings of one entity share one store entry and one history series.
 */
import { Either, Option } from "effect"

/** Longest subject accepted, whatever its form (matches the specification's `subject` bound). */
export const maxLength = 400

/** How a platform turns a URL into the same key as its handle or id form, when the URL carries one. */
export type UrlExtractor = (url: URL) => string | undefined

/** The forms one op accepts for its subjects and how each is canonicalized. */
export interface SubjectSpec {
  /** Human-readable list of accepted forms, for error messages and the catalogue. */
  readonly describe: string
  readonly url: boolean
  /** Handles: letters, digits, `.`, `_`, `-`; a leading `@` dropped; case-folded. */
  readonly handle: boolean
  /** Bare ids of this shape. */
  readonly id?: RegExp
  /** When a URL carries the handle or id, the URL normalizes to that key. */
  readonly fromUrl?: UrlExtractor
  /** A URL that must carry a handle or id (it names nothing otherwise). */
  readonly urlMustExtract?: boolean
}

const handlePattern = /^[a-z0-9._-]{1,100}$/

/** Query parameters that only track a click and never change what a URL names. */
const trackingParams = new Set([
  "fbclid",
  "gclid",
  "dclid",
  "msclkid",
  "igshid",
  "igsh",
  "mibextid",
  "si",
  "ref",
  "ref_src",
  "ref_url",
  "_r",
  "_t",
  "is_from_webapp",
  "sender_device",
  "share_id",
  "share_app_id",
  "spm",
  "mc_cid",
  "mc_eid",
  "trk",
  "trackingId"
])

const isTracking = (name: string) => name.toLowerCase().startsWith("utm_") || trackingParams.has(name)

/** Parses an absolute http(s) URL, or nothing. */
export const parseUrl = (input: string): Option.Option<URL> => {
  if (!/^https?:\/\//i.test(input)) return Option.none()
  try {
    const url = new URL(input)
    return url.hostname.length > 0 ? Option.some(url) : Option.none()
  } catch {
    return Option.none()
  }
}

/**
 * Canonical form of a URL: scheme and host lower-cased (the URL parser does both), default port, fragment and
 * tracking parameters dropped, the remaining parameters sorted, trailing slash dropped.
 */
export const canonicalUrl = (url: URL): string => {
  const params = [...url.searchParams.entries()].filter(([name]) => !isTracking(name))
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const query = params.length === 0 ? "" : `?${new URLSearchParams(params).toString()}`
  let path = url.pathname
  while (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1)
  if (path === "/") path = ""
  return `${url.protocol}//${url.host}${path}${query}`
}

/**
 * The accepted forms as JSON Schema patterns (surrounding blanks are trimmed by the server): an absolute http(s)
 * URL, a bare id of the op's shape, a handle. Whether a URL carries the id a platform needs cannot be a pattern: the
 * description says which URLs name a subject.
 */
export const jsonForms = (
  spec: SubjectSpec
): ReadonlyArray<{ readonly pattern: string; readonly description: string }> => {
  const forms: Array<{ pattern: string; description: string }> = []
  if (spec.url || spec.fromUrl)
    forms.push({ pattern: "^\\s*[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+", description: "an absolute http(s) URL" })
  if (spec.id) forms.push({ pattern: `^\\s*(?:${spec.id.source.slice(1, -1)})\\s*$`, description: "a bare id" })
  if (spec.handle) forms.push({ pattern: "^\\s*@?[A-Za-z0-9._-]{1,100}\\s*$", description: "a handle" })
  return forms
}

/** Why a subject was refused: the message names the accepted forms. */
export interface SubjectProblem {
  readonly message: string
}

/** Normalizes one subject into its canonical entity key, or says why it is not of an accepted form. */
export const normalize = (spec: SubjectSpec, raw: string): Either.Either<string, SubjectProblem> => {
  const input = raw.trim()
  if (input.length === 0) return problem(`must not be empty; expected ${spec.describe}`)
  if (input.length > maxLength) return problem(`must be at most ${maxLength} characters; expected ${spec.describe}`)
  const url = parseUrl(input)
  if (Option.isSome(url)) {
    if (!spec.url && !spec.fromUrl) return problem(`a URL is not accepted here; expected ${spec.describe}`)
    const extracted = spec.fromUrl?.(url.value)
    if (extracted !== undefined) {
      const key = spec.handle ? foldHandle(extracted) : extracted
      if (key !== undefined && (spec.handle ? handlePattern.test(key) : (spec.id?.test(key) ?? true))) return ok(key)
    }
    if (spec.urlMustExtract) return problem(`this URL carries no id; expected ${spec.describe}`)
    if (!spec.url) return problem(`expected ${spec.describe}`)
    return ok(canonicalUrl(url.value))
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input))
    return problem(`only absolute http(s) URLs are accepted; expected ${spec.describe}`)
  if (spec.id?.test(input)) return ok(input)
  if (spec.handle) {
    const folded = foldHandle(input)
    if (folded !== undefined && handlePattern.test(folded)) return ok(folded)
  }
  return problem(`is not of an accepted form; expected ${spec.describe}`)
}

const ok = (key: string): Either.Either<string, SubjectProblem> => Either.right(key)
const problem = (message: string): Either.Either<string, SubjectProblem> => Either.left({ message })

const foldHandle = (input: string): string | undefined => {
  const bare = input.startsWith("@") ? input.slice(1) : input
  return bare.length === 0 ? undefined : bare.toLowerCase()
}

const segments = (url: URL) =>
  url.pathname
    .split("/")
    .filter((s) => s.length > 0)
    .map((s) => {
      try {
        return decodeURIComponent(s)
      } catch {
        return s
      }
    })

/** The path segment after `marker` (e.g. `/in/<handle>`). */
export const segmentAfter =
  (...markers: ReadonlyArray<string>): UrlExtractor =>
  (url) => {
    const parts = segments(url)
    for (let i = 0; i < parts.length - 1; i++) {
      if (markers.includes(parts[i]!.toLowerCase())) return parts[i + 1]
    }
    return undefined
  }

/** The first path segment that starts with `@` (short-video profile URLs). */
export const atSegment: UrlExtractor = (url) => segments(url).find((s) => s.startsWith("@") && s.length > 1)

/** The first path segment, unless it is one of the reserved words of the site. */
export const firstSegment =
  (reserved: ReadonlyArray<string>): UrlExtractor =>
  (url) => {
    const first = segments(url)[0]
    return first !== undefined && !reserved.includes(first.toLowerCase()) ? first : undefined
  }

/** The first of the named query parameters that is present. */
export const queryParam =
  (...names: ReadonlyArray<string>): UrlExtractor =>
  (url) => {
    for (const name of names) {
      const value = url.searchParams.get(name)
      if (value !== null && value.length > 0) return value
    }
    return undefined
  }

/** The last run of at least `min` digits in the path. */
export const lastDigits =
  (min: number): UrlExtractor =>
  (url) => {
    const runs = url.pathname.match(new RegExp(`\\d{${min},}`, "g"))
    return runs === null ? undefined : runs[runs.length - 1]
  }

/** Tries the extractors in order. */
export const firstOf =
  (...extractors: ReadonlyArray<UrlExtractor>): UrlExtractor =>
  (url) => {
    for (const extract of extractors) {
      const found = extract(url)
      if (found !== undefined) return found
    }
    return undefined
  }

/** Only absolute http(s) URLs, canonicalized. */
export const urlOnly = (what: string): SubjectSpec => ({
  describe: `${what} (absolute http(s) URL)`,
  url: true,
  handle: false
})
