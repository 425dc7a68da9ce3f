/**
 * The catalogue: the 16 platforms and 70 ops of the specification (completed by D14), each with its request
 * Schema, price rule (D1), freshness window (D2), availability (D11), subject forms (D3) and history metrics (D9).
 * Every other package reads prices, bounds and windows from here.
 */
import { JSONSchema, Schema } from "effect"
import * as F from "./Fields.js"
import { keepsResults, measure, OpKind, type Part } from "./OpKind.js"
import { PriceRule, published as publishedPrice } from "./Pricing.js"
import * as Forum from "./rows/Forum.js"
import * as Jobs from "./rows/Jobs.js"
import * as Maps from "./rows/Maps.js"
import * as QuickCommerce from "./rows/QuickCommerce.js"
import * as R from "./rows/Row.js"
import * as ShortVideo from "./rows/ShortVideo.js"
import * as SocialNetwork from "./rows/SocialNetwork.js"
import * as Special from "./rows/Special.js"
import * as Stays from "./rows/Stays.js"
import * as Stores from "./rows/Stores.js"
import * as WebSearch from "./rows/WebSearch.js"
import * as S from "./Subjects.js"

/** How an op's work divides into units (D4 `coverage`): one per subject, its one subject, or its query. */
export type UnitShape = "subjects" | "subject" | "query"

/** What a history point is kept per (D9): nothing, the resolved store, or the stay it was priced for. */
export type HistoryScope = "none" | "store" | "stay"

/**
 * One op of one platform. Its type parameters are the op's name, the Schema of its request fields and the Schema of
 * its answer rows: the typed catalogue (`typed`) keeps them, so the HTTP contract and its clients are typed per op.
 */
export interface OpDef<
  N extends string = string,
  Rq extends Schema.Schema.Any = Schema.Schema.AnyNoContext,
  Rw extends Schema.Schema.Any = Schema.Schema.AnyNoContext
> {
  readonly platform: string
  readonly name: N
  readonly description: string
  /** What the op does: measure, read a series, reveal contact parts, run a source. */
  readonly kind: OpKind
  readonly price: PriceRule
  /** The freshness window in seconds, or null when results are always fetched. */
  readonly freshSeconds: number | null
  readonly available: boolean
  /** The request Schema (`op` plus the op's own fields), decoding to the typed, defaulted request. */
  readonly schema: Schema.Schema<OpRequest, unknown>
  /** The struct of `op` and the op's fields, without the rules of the whole request (`schema` has them). */
  readonly request: Rq
  readonly units: UnitShape
  /** What a history point is kept per when this op measures it: the resolved store, the priced stay, or neither. */
  readonly scope: HistoryScope
  /** Typed accessors of the request fields the core reads. */
  readonly facets: Facets
  /** Rules of the whole request that its field Schemas do not say, as JSON Schema keywords or a description. */
  readonly requestRule: object | undefined
  /** The op's own request fields (without `op`), as declared. */
  readonly fields: Schema.Struct.Fields
  /** The subject forms, for ops that take `subjects` or `subject`. */
  readonly subjectSpec: S.SubjectSpec | undefined
  /** The field that says how many rows (or pages) are asked for. */
  readonly rowsField: "limit" | "pages" | undefined
  /** For `history` ops: the metric enum. */
  readonly metrics: ReadonlyArray<string> | undefined
  /** For `history` ops: per metric, the row field it is measured from and how a point aggregates rows. */
  readonly metricSources: Readonly<Record<string, R.MetricSource>> | undefined
  /** Whether results are kept as measured data (explore's runs keep nothing): from its kind. */
  readonly stored: boolean
  /** The Schema of one `data` row of the answer: the delivered fields plus the envelope (D4). */
  readonly row: Rw
  /** The Schema of one row as an upstream adapter delivers it (no envelope); undefined for a series. */
  readonly delivered: Schema.Schema.AnyNoContext | undefined
}

/**
 * What the core reads from a decoded request, as typed accessors of the op's declared fields: nothing outside the
 * catalogue names a request field.
 */
export interface Facets {
  /** The coverage label of a query unit (D4). */
  readonly label: (request: OpRequest) => string
  /** The canonical subjects of a `subjects` op, or the one subject of a `subject` op, in request order. */
  readonly subjects: (request: OpRequest) => ReadonlyArray<string>
  /** Rows (or pages) asked for: the op's `limit` or `pages`, else 1. */
  readonly asked: (request: OpRequest) => number
  /** The quick-commerce store locator, for store-scoped ops. */
  readonly store: (request: OpRequest) => Readonly<Record<string, unknown>> | undefined
  /** The stay, for stay-scoped ops, when it has dates (a priced stay, D9). */
  readonly pricedStay: (request: OpRequest) => Readonly<Record<string, unknown>> | null
  /** The explore source named, for ops priced per source row. */
  readonly source: (request: OpRequest) => string | undefined
  /** The input an explore source is run with (`{}` when none is given), for ops priced per source row. */
  readonly sourceInput: (request: OpRequest) => Readonly<Record<string, unknown>>
  /** The contact parts asked for (distinct), for ops priced per part. */
  readonly parts: (request: OpRequest) => ReadonlyArray<Part>
}

/** A decoded, defaulted op request: `op` and the op's own fields. */
export interface OpRequest {
  readonly op: string
  readonly [field: string]: unknown
}

/** A platform and its ops (typed, in the typed catalogue). */
export interface PlatformDef<Id extends string = string, Ops extends ReadonlyArray<OpDef> = ReadonlyArray<OpDef>> {
  readonly id: Id
  readonly description: string
  readonly ops: Ops
  /** History points of this platform: the scope they are kept per. */
  readonly historyScope: HistoryScope
}

const HOUR = 3600
const DAY = 24 * HOUR

interface OpInput<
  Fl extends Schema.Struct.Fields,
  Rw extends Schema.Struct.Fields,
  AR extends Schema.Schema.AnyNoContext | undefined,
  Kd extends OpKind
> {
  readonly description: string
  /** What the op does; rows measured and kept when not said. */
  readonly kind?: Kd
  readonly price: PriceRule
  readonly fresh?: number
  readonly available?: boolean
  readonly fields: Fl
  readonly subjects?: S.SubjectSpec
  readonly check?: (
    request: Record<string, unknown>
  ) => true | string | { path: ReadonlyArray<string>; message: string }
  /** The coverage label of a query unit, when it is not the `query` field. */
  readonly label?: (request: OpRequest) => string
  /** How `check` reads in JSON Schema (a keyword such as `oneOf`, or a `description` when it cannot be one). */
  readonly checkJsonSchema?: object
  /** The fields of one delivered row (camelCase, units in descriptions). */
  readonly rows: Rw
  /** The answer row when it is not the delivered row plus the envelope (contacts, history). */
  readonly answerRow?: AR
  readonly metricSources?: Readonly<Record<string, R.MetricSource>>
}

const unverifiedField = Schema.Literal(true).annotations({ description: "raw, unverified, not kept" })

const rowOptions = { parseOptions: { onExcessProperty: "error" } } as const

/** The request struct of an op: `op` and its fields. */
type RequestStruct<N extends string, Fl extends Schema.Struct.Fields> = Schema.Struct<
  { readonly op: Schema.Literal<[N]> } & Fl
>

/** The answer row of an op: its own answer row, or the delivered fields plus the envelope (and `unverified`). */
type AnswerRow<
  Rw extends Schema.Struct.Fields,
  AR extends Schema.Schema.AnyNoContext | undefined,
  Kd extends OpKind
> = AR extends Schema.Schema.AnyNoContext
  ? AR
  : Schema.Struct<
      typeof R.envelope &
        Rw &
        (Kd extends { readonly _tag: "Run" } ? { readonly unverified: typeof unverifiedField } : {})
    >

/**
 * An op of the catalogue, made for its platform and typed with its name, request struct and answer row (`NoInfer`:
 * the row's type comes from the op's own input, never from the type expected where the op is used).
 */
const op =
  <
    const N extends string,
    Fl extends Schema.Struct.Fields,
    Rw extends Schema.Struct.Fields,
    AR extends Schema.Schema.AnyNoContext | undefined = undefined,
    Kd extends OpKind = typeof measure
  >(
    name: N,
    input: OpInput<Fl, Rw, AR, Kd>
  ) =>
  (platform: string): OpDef<N, RequestStruct<N, Fl>, AnswerRow<Rw, NoInfer<AR>, NoInfer<Kd>>> => {
    const kind: OpKind = input.kind ?? measure
    const stored = keepsResults(kind)
    const struct = Schema.Struct({ op: Schema.Literal(name), ...input.fields })
    const checked = input.check
      ? struct.pipe(Schema.filter((r) => input.check!(r as Record<string, unknown>) as never))
      : struct
    const metricField = input.fields["metric"]
    return {
      platform,
      name,
      description: input.description,
      kind,
      price: input.price,
      freshSeconds: input.fresh ?? null,
      available: input.available ?? true,
      schema: checked as unknown as Schema.Schema<OpRequest, unknown>,
      request: struct as unknown as RequestStruct<N, Fl>,
      fields: input.fields,
      facets: facetsOf(input, kind),
      scope: "store" in input.fields ? "store" : "stay" in input.fields ? "stay" : "none",
      requestRule: input.checkJsonSchema,
      units: "subjects" in input.fields ? "subjects" : "subject" in input.fields ? "subject" : "query",
      subjectSpec: input.subjects,
      rowsField: "limit" in input.fields ? "limit" : "pages" in input.fields ? "pages" : undefined,
      metrics: metricField ? metricValues(metricField) : undefined,
      metricSources: input.metricSources,
      stored,
      // every answer row is named `<platform>.<op>.Row` (its own answer row too: history, contacts), so the OpenAPI
      // document and the clients typed from it know each op's rows
      row: (input.answerRow
        ? input.answerRow.annotations({ identifier: `${platform}.${name}.Row` })
        : Schema.Struct({
            ...R.envelope,
            ...input.rows,
            ...(stored ? {} : { unverified: unverifiedField })
          } as unknown as Record<string, Schema.Schema.AnyNoContext>).annotations({
            ...rowOptions,
            identifier: `${platform}.${name}.Row`
          })) as unknown as AnswerRow<Rw, AR, Kd>,
      delivered:
        kind._tag === "Series"
          ? undefined
          : (Schema.Struct({ subject: R.optional(R.envelope.subject), ...input.rows }).annotations(
              rowOptions
            ) as unknown as Schema.Schema.AnyNoContext)
    }
  }

const noParts: ReadonlyArray<Part> = []

const facetsOf = (
  input: OpInput<Schema.Struct.Fields, Schema.Struct.Fields, Schema.Schema.AnyNoContext | undefined, OpKind>,
  kind: OpKind
): Facets => {
  const runsSource = kind._tag === "Run" && kind.source
  const f = input.fields
  const rowsField = "limit" in f ? "limit" : "pages" in f ? "pages" : undefined
  return {
    label: input.label ?? ("query" in f ? (r) => (typeof r["query"] === "string" ? r["query"] : "") : () => ""),
    subjects:
      "subjects" in f
        ? (r) => [...new Set(r["subjects"] as ReadonlyArray<string>)]
        : "subject" in f
          ? (r) => [String(r["subject"])]
          : () => [],
    asked: rowsField === undefined ? () => 1 : (r) => Number(r[rowsField]),
    store: "store" in f ? (r) => r["store"] as Readonly<Record<string, unknown>> | undefined : () => undefined,
    pricedStay:
      "stay" in f
        ? (r) => {
            const stay = r["stay"] as Readonly<Record<string, unknown>> | undefined
            return stay && typeof stay["checkIn"] === "string" ? stay : null
          }
        : () => null,
    source: runsSource ? (r) => String(r["source"]) : () => undefined,
    sourceInput: runsSource ? (r) => (r["input"] ?? {}) as Readonly<Record<string, unknown>> : () => ({}),
    parts: kind._tag === "Reveal" ? (r) => [...new Set(r["reveal"] as ReadonlyArray<Part>)] : () => noParts
  }
}

const metricValues = (field: Schema.Struct.Field): ReadonlyArray<string> => {
  const ast = Schema.isSchema(field) ? field.ast : (field as unknown as { ast: { type: { ast: unknown } } }).ast
  const found: Array<string> = []
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return
    const n = node as {
      _tag?: string
      literal?: unknown
      types?: ReadonlyArray<unknown>
      from?: unknown
      type?: unknown
    }
    if (n._tag === "Literal" && typeof n.literal === "string") found.push(n.literal)
    n.types?.forEach(visit)
    if (n.from) visit(n.from)
    if (n.type) visit(n.type)
  }
  visit(ast)
  return [...new Set(found)]
}

const platform = <const Id extends string, const Ops extends ReadonlyArray<(platform: string) => OpDef>>(
  id: Id,
  description: string,
  historyScope: HistoryScope,
  ops: Ops
): PlatformDef<Id, { readonly [K in keyof Ops]: ReturnType<Ops[K]> }> => ({
  id,
  description,
  historyScope,
  ops: ops.map((make) => make(id)) as { readonly [K in keyof Ops]: ReturnType<Ops[K]> }
})

const perSubject = (credits: number) => PriceRule.PerSubject({ credits })
const perRows = (credits: number, rows: number) => PriceRule.PerRows({ credits, rows })
const free = PriceRule.Free()

const query = F.text(300)
const location = F.text(120)

const history = <const M extends string, Ex extends Schema.Struct.Fields = {}>(
  spec: S.SubjectSpec,
  sources: Readonly<Record<M, R.MetricSource>>,
  extra: Ex = {} as Ex,
  maxSubjects = 10
) => {
  const metrics = Object.keys(sources) as unknown as readonly [M, ...Array<M>]
  return op("history", {
    kind: OpKind.Series(),
    description: `Stored series of one metric (${metrics.join(", ")}) over the last days; free, never fetches.`,
    price: free,
    subjects: spec,
    fields: {
      subjects: F.subjects(spec, maxSubjects),
      ...extra,
      metric: F.metric(metrics, metrics[0]),
      days: F.days
    },
    rows: {},
    answerRow: Special.historyRow(metrics),
    metricSources: sources
  })
}

// Subject forms per platform (D3)
const qcProduct = S.urlOnly("a product URL of the app")
const svProfile: S.SubjectSpec = {
  describe: "a handle (letters, digits, '.', '_', '-'; '@' optional) or a profile URL",
  url: false,
  handle: true,
  fromUrl: S.firstOf(S.atSegment, S.firstSegment(["video", "tag", "music", "search", "discover", "explore"])),
  urlMustExtract: true
}
const svPost = S.urlOnly("a post URL")
const forumUser: S.SubjectSpec = {
  describe: "a user name or a profile URL",
  url: false,
  handle: true,
  fromUrl: S.segmentAfter("user", "u"),
  urlMustExtract: true
}
const forumCommunity: S.SubjectSpec = {
  describe: "a community name or a community URL",
  url: false,
  handle: true,
  fromUrl: S.segmentAfter("r"),
  urlMustExtract: true
}
const forumPost: S.SubjectSpec = {
  describe: "a post permalink or a bare post id (base-36)",
  url: false,
  handle: false,
  id: /^[a-z0-9]{1,12}$/,
  fromUrl: S.segmentAfter("comments"),
  urlMustExtract: true
}
const mapsPlace: S.SubjectSpec = {
  describe: "a maps URL carrying a place id or cid, or a bare place id",
  url: false,
  handle: false,
  id: /^[A-Za-z0-9_:-]{10,200}$/,
  fromUrl: S.queryParam("place_id", "query_place_id", "cid", "ftid"),
  urlMustExtract: true
}
const jobsInJob: S.SubjectSpec = {
  describe: "a numeric job id or a job URL",
  url: false,
  handle: false,
  id: /^[0-9]{4,20}$/,
  fromUrl: S.firstOf(S.queryParam("jobId", "job_id"), S.lastDigits(4)),
  urlMustExtract: true
}
const jobsGlobalJob: S.SubjectSpec = {
  describe: "a job key or a job URL",
  url: true,
  handle: false,
  id: /^[A-Za-z0-9]{8,40}$/,
  fromUrl: S.queryParam("jk", "vjk")
}
const snPage: S.SubjectSpec = {
  describe: "a page URL or a vanity handle",
  url: true,
  handle: true,
  fromUrl: S.firstOf(
    S.queryParam("id"),
    S.firstSegment([
      "groups",
      "events",
      "marketplace",
      "watch",
      "profile.php",
      "permalink.php",
      "photo",
      "reel",
      "story.php",
      "share"
    ])
  )
}
const snPermalink = S.urlOnly("a post, reel or photo permalink")
const playApp: S.SubjectSpec = {
  describe: "an app package id (e.g. com.example.app) or a store URL",
  url: false,
  handle: false,
  id: /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/,
  fromUrl: S.queryParam("id"),
  urlMustExtract: true
}
const hotelPage = S.urlOnly("a hotel page URL")
const travelPage = S.urlOnly("a hotel, restaurant or attraction page URL")
const rentalListing: S.SubjectSpec = {
  describe: "a listing URL or a room id",
  url: true,
  handle: false,
  id: /^[0-9]{3,20}$/,
  fromUrl: S.segmentAfter("rooms")
}
const fashionItem: S.SubjectSpec = {
  describe: "a product URL or a numeric item id",
  url: true,
  handle: false,
  id: /^[0-9]{4,20}$/,
  fromUrl: S.lastDigits(5)
}
const storefront: S.SubjectSpec = {
  describe: "a store URL (normalized to its origin)",
  url: false,
  handle: false,
  fromUrl: (u) => `${u.protocol}//${u.host}`,
  urlMustExtract: true
}
const contactPerson: S.SubjectSpec = {
  describe: "a professional-network profile handle (the /in/ path segment) or profile URL",
  url: false,
  handle: true,
  fromUrl: S.segmentAfter("in"),
  urlMustExtract: true
}

const jobsGlobalCountry = F.withDefault(
  F.oneOf(
    "US",
    "GB",
    "CA",
    "AU",
    "IN",
    "DE",
    "FR",
    "JP",
    "BR",
    "MX",
    "IT",
    "ES",
    "NL",
    "BE",
    "CH",
    "AT",
    "SG",
    "HK",
    "IE",
    "NZ",
    "AR",
    "CL",
    "CO"
  ),
  "US"
)

const qcOps = (app: string) => {
  const store = { store: F.Store }
  return [
    op("products", {
      rows: QuickCommerce.product,
      description: `Product cards at one ${app} dark store: name, brand, pack size, price, mrp, discount, stock, rating.`,
      price: perSubject(1),
      fresh: 6 * HOUR,
      subjects: qcProduct,
      fields: { subjects: F.subjects(qcProduct, 10), ...store }
    }),
    op("search", {
      rows: QuickCommerce.product,
      description: "Listings for a query with price, stock and rank at the store.",
      price: perRows(20, 20),
      fields: { query, ...store, limit: F.limit(20, 1, 100) }
    }),
    op("category", {
      rows: QuickCommerce.product,
      description: "Listings of one category and sub-category of the app's own menu at the store.",
      price: perRows(20, 20),
      fields: { category: F.text(80), subCategory: F.text(80), ...store, limit: F.limit(20, 1, 100) },
      label: (r) => `${r["category"]} / ${String(r["subCategory"])}`
    }),
    history(qcProduct, QuickCommerce.metrics, store)
  ] as const
}

/** Travel reviews cards of one kind of place (hotels are priced for a stay). */
const travelCards = <const K extends string, Ex extends Schema.Struct.Fields>(kind: K, extra: Ex) =>
  op(kind, {
    rows: Stays.place,
    description: `Cards of ${kind} by page URL: name, rating, reviews, rank${"stay" in extra ? ", price for the stay" : ""}.`,
    price: perSubject(2),
    fresh: 3 * DAY,
    subjects: travelPage,
    fields: {
      subjects: F.subjects(travelPage, 10),
      language: F.withDefault(F.Bcp47, "en"),
      currency: F.withDefault(F.Currency, "USD"),
      ...extra
    }
  })

/** Travel reviews search of one kind of place. */
const travelSearch = <const K extends string, Ex extends Schema.Struct.Fields>(kind: K, extra: Ex) =>
  op(`search${kind}`, {
    rows: Stays.place,
    description: `${kind} matching a query.`,
    price: perRows(20, 10),
    fields: {
      query,
      language: F.withDefault(F.Bcp47, "en"),
      currency: F.withDefault(F.Currency, "USD"),
      limit: F.limit(10, 1, 100),
      ...extra
    }
  })

const dateOrderNote = { description: "`until` must not be before `since` (refused with a 400 naming `until`)" }

const dateOrder = (r: Record<string, unknown>) =>
  typeof r["since"] === "string" && typeof r["until"] === "string" && r["until"] < r["since"]
    ? { path: ["until"], message: "must not be before since" }
    : true

/**
 * Every platform of the catalogue, in the specification's order, typed: each platform's id and each op's name,
 * request and row Schemas are kept in its type (the HTTP contract and the clients are typed from it).
 */
export const typed = [
  platform("quick_commerce_a", "Quick-commerce app A: one dark store, prices per store.", "store", qcOps("app A")),
  platform("quick_commerce_b", "Quick-commerce app B: one dark store, prices per store.", "store", qcOps("app B")),
  platform("short_video", "Short-video app: accounts, posts, comments, followers and shop.", "none", [
    op("profiles", {
      rows: ShortVideo.profile,
      description: "Profile cards: handle, name, followers, following, total likes, videos, verified, bio.",
      price: perSubject(2),
      fresh: 7 * DAY,
      subjects: svProfile,
      fields: { subjects: F.subjects(svProfile, 10) }
    }),
    op("posts", {
      rows: ShortVideo.post,
      description: "Recent posts of one account with views, likes, comments and shares.",
      price: perRows(29, 15),
      fresh: 1 * DAY,
      subjects: svProfile,
      fields: { subject: F.subject(svProfile), limit: F.limit(15, 1, 100) }
    }),
    op("videos", {
      rows: ShortVideo.video,
      description: "Post cards by URL: caption, views, likes, comments, shares, duration, sound.",
      price: perSubject(2),
      fresh: 1 * DAY,
      subjects: svPost,
      fields: { subjects: F.subjects(svPost, 10) }
    }),
    op("searchPosts", {
      rows: ShortVideo.foundPost,
      description: "Posts matching exactly one of a query, a hashtag or a sound URL.",
      price: perRows(39, 20),
      fields: {
        query: F.optional(F.text(300)),
        hashtag: F.optional(F.text(150)),
        soundUrl: F.optional(F.text(400)),
        limit: F.limit(20, 1, 100)
      },
      label: (r) => String(r["query"] ?? r["hashtag"] ?? r["soundUrl"]),
      checkJsonSchema: {
        oneOf: [{ required: ["query"] }, { required: ["hashtag"] }, { required: ["soundUrl"] }],
        description: "exactly one of query, hashtag, soundUrl"
      },
      check: (r) => {
        const given = ["query", "hashtag", "soundUrl"].filter((k) => r[k] !== undefined)
        if (given.length === 1) return true
        return given.length === 0
          ? "must give exactly one of query, hashtag, soundUrl (none given)"
          : {
              path: [given[1]!],
              message: `must give exactly one of query, hashtag, soundUrl (got ${given.join(", ")})`
            }
      }
    }),
    op("search", {
      rows: ShortVideo.profile,
      description: "Accounts matching a query.",
      price: perRows(25, 10),
      fields: { query, limit: F.limit(10, 1, 100) }
    }),
    op("comments", {
      rows: ShortVideo.comment,
      description: "Comments of posts by URL.",
      price: perRows(25, 50),
      fresh: 1 * DAY,
      subjects: svPost,
      fields: { subjects: F.subjects(svPost, 10), limit: F.limit(50, 1, 100) }
    }),
    op("followers", {
      rows: ShortVideo.follower,
      description: "Followers or followings of accounts.",
      price: perRows(25, 25),
      fresh: 7 * DAY,
      subjects: svProfile,
      fields: {
        subjects: F.subjects(svProfile, 5),
        direction: F.withDefault(F.oneOf("followers", "following"), "followers"),
        limit: F.limit(25, 1, 100)
      }
    }),
    op("shop", {
      rows: ShortVideo.shopProduct,
      description: "Shop products matching a query.",
      price: perRows(145, 10),
      fields: { query, limit: F.limit(10, 1, 100) }
    }),
    history(svProfile, ShortVideo.metrics)
  ]),
  platform("forum", "Discussion forum: posts, communities, comments.", "none", [
    op("posts", {
      rows: Forum.post,
      description: "Posts of one user: score, upvote ratio, comment count, kind, permalink.",
      price: perRows(25, 10),
      fresh: 1 * DAY,
      subjects: forumUser,
      fields: { subject: F.subject(forumUser), limit: F.limit(10, 1, 50) }
    }),
    op("subreddit", {
      rows: Forum.post,
      description: "Listing of one community by sort.",
      price: perRows(25, 10),
      subjects: forumCommunity,
      fields: {
        subject: F.subject(forumCommunity),
        sort: F.withDefault(F.oneOf("hot", "newest", "top", "rising"), "hot"),
        postedWithin: F.withDefault(F.ForumWindow, "7d"),
        limit: F.limit(10, 1, 50)
      }
    }),
    op("comments", {
      rows: Forum.comment,
      description: "Comments of posts by permalink or id.",
      price: perRows(3, 25),
      fresh: 1 * DAY,
      subjects: forumPost,
      fields: { subjects: F.subjects(forumPost, 10), limit: F.limit(25, 1, 100) }
    }),
    op("search", {
      rows: Forum.post,
      description: "Posts matching a query.",
      price: perRows(25, 10),
      fields: {
        query,
        sort: F.withDefault(F.oneOf("relevance", "hot", "top", "newest", "most_commented"), "relevance"),
        postedWithin: F.withDefault(F.ForumWindow, "any"),
        limit: F.limit(10, 1, 50)
      }
    }),
    history(forumPost, Forum.metrics)
  ]),
  platform("maps", "Maps service: places, search, reviews.", "none", [
    op("places", {
      rows: Maps.place,
      description:
        "Place cards: name, address, coordinates, rating, review count, categories, phone, website, hours, live occupancy.",
      price: perSubject(4),
      fresh: 3 * DAY,
      subjects: mapsPlace,
      fields: { subjects: F.subjects(mapsPlace, 10) }
    }),
    op("search", {
      rows: Maps.place,
      description: "Places matching a query near a location.",
      price: perRows(39, 10),
      fields: {
        query,
        location,
        minRating: F.optional(F.oneOf("2", "2.5", "3", "3.5", "4", "4.5")),
        website: F.withDefault(F.oneOf("any", "with", "without"), "any"),
        limit: F.limit(10, 1, 100)
      }
    }),
    op("reviews", {
      rows: Maps.review,
      description: "Reviews of places.",
      price: perRows(7, 25),
      fresh: 3 * DAY,
      subjects: mapsPlace,
      fields: {
        subjects: F.subjects(mapsPlace, 10),
        sort: F.withDefault(F.oneOf("newest", "relevance", "rating_high", "rating_low"), "newest"),
        limit: F.limit(25, 1, 100)
      }
    }),
    history(mapsPlace, Maps.metrics)
  ]),
  platform("jobs_in", "Job board A (India).", "none", [
    op("search", {
      rows: Jobs.jobIn,
      description: "Jobs for a keyword or pasted search URL; bills a minimum of 50 rows.",
      price: PriceRule.MinimumRows({ credits: 97, rows: 50, minimum: 50 }),
      fields: {
        query,
        postedWithin: F.withDefault(F.JobsWindow, "any"),
        sort: F.withDefault(F.oneOf("relevance", "newest"), "relevance"),
        experience: F.withDefault(F.Experience, "all"),
        workplace: F.list(F.oneOf("onsite", "remote", "hybrid", "temporary_wfh")),
        salaryMin: F.optional(F.int(0, 1000)),
        salaryMax: F.optional(F.int(0, 1000)),
        locations: F.list(F.text(60)),
        department: F.list(F.NumericId),
        roleCategory: F.list(F.NumericId),
        industry: F.list(F.NumericId),
        companyType: F.list(F.NumericId),
        topCompanies: F.list(F.NumericId),
        ugCourse: F.list(F.NumericId),
        pgCourse: F.list(F.NumericId),
        postedBy: F.list(F.oneOf("company", "consultant")),
        fetchDetails: F.withDefault(Schema.Boolean, true),
        limit: F.limit(50, 50, 200)
      },
      checkJsonSchema: { description: "`salaryMax` must not be below `salaryMin`" },
      check: (r) =>
        typeof r["salaryMin"] === "number" && typeof r["salaryMax"] === "number" && r["salaryMax"] < r["salaryMin"]
          ? { path: ["salaryMax"], message: "must not be below salaryMin" }
          : true
    }),
    history(jobsInJob, Jobs.jobInMetrics)
  ]),
  platform("jobs_global", "Job board B (multi-country).", "none", [
    op("search", {
      rows: Jobs.jobGlobalFound,
      description: "Jobs matching a query in one country.",
      price: perRows(1, 20),
      fields: {
        query,
        location: F.optional(location),
        country: jobsGlobalCountry,
        workplace: F.list(F.oneOf("remote")),
        employmentType: F.list(F.oneOf("full_time", "part_time", "contract", "internship", "temporary")),
        postedWithin: F.withDefault(F.JobsWindow, "any"),
        sort: F.withDefault(F.oneOf("relevance", "newest"), "relevance"),
        limit: F.limit(20, 1, 100)
      }
    }),
    op("jobs", {
      rows: Jobs.jobGlobal,
      description: "Job cards by key or URL.",
      price: perSubject(1),
      fresh: 3 * DAY,
      subjects: jobsGlobalJob,
      fields: { subjects: F.subjects(jobsGlobalJob, 10), country: jobsGlobalCountry }
    })
  ]),
  platform(
    "social_network",
    "Social network: pages, posts, reels, reviews, followers, ads, events, marketplace.",
    "none",
    [
      op("pages", {
        rows: SocialNetwork.page,
        description: "Page cards: name, category, followers, likes, talking about, reviews, recommend percent.",
        price: perSubject(10),
        fresh: 7 * DAY,
        subjects: snPage,
        fields: { subjects: F.subjects(snPage, 10) }
      }),
      op("posts", {
        rows: SocialNetwork.post,
        description: "Posts of a page, profile or group.",
        price: perRows(121, 25),
        fresh: 1 * DAY,
        subjects: snPage,
        fields: {
          subject: F.subject(snPage),
          since: F.optional(F.Day),
          until: F.optional(F.Day),
          limit: F.limit(25, 1, 100)
        },
        checkJsonSchema: dateOrderNote,
        check: dateOrder
      }),
      op("reels", {
        rows: SocialNetwork.reel,
        description: "Reels of a page or profile.",
        price: perRows(97, 20),
        fresh: 1 * DAY,
        subjects: snPage,
        fields: { subject: F.subject(snPage), limit: F.limit(20, 1, 100) }
      }),
      op("reviews", {
        rows: SocialNetwork.review,
        description: "Reviews of pages.",
        price: perRows(121, 50),
        fresh: 3 * DAY,
        subjects: snPage,
        fields: { subjects: F.subjects(snPage, 5), limit: F.limit(50, 1, 100) }
      }),
      op("followers", {
        rows: SocialNetwork.follower,
        description: "Followers or followings of pages.",
        price: perRows(182, 25),
        fresh: 7 * DAY,
        subjects: snPage,
        fields: {
          subjects: F.subjects(snPage, 3),
          direction: F.withDefault(F.oneOf("followers", "following"), "followers"),
          limit: F.limit(25, 1, 100)
        }
      }),
      op("ads", {
        rows: SocialNetwork.ad,
        description: "Ads run by pages.",
        price: perRows(121, 25),
        fresh: 1 * DAY,
        subjects: snPage,
        fields: {
          subjects: F.subjects(snPage, 5),
          status: F.withDefault(F.oneOf("active", "inactive"), "active"),
          limit: F.limit(25, 1, 100)
        }
      }),
      op("events", {
        rows: SocialNetwork.event,
        description: "Events matching a query.",
        price: perRows(194, 20),
        fields: { query, limit: F.limit(20, 1, 100) }
      }),
      op("marketplace", {
        rows: SocialNetwork.listing,
        description: "Marketplace listings of a category or search URL.",
        price: perRows(194, 20),
        subjects: S.urlOnly("a marketplace category or search URL"),
        fields: { subject: F.subject(S.urlOnly("a marketplace category or search URL")), limit: F.limit(20, 1, 100) }
      }),
      history(snPage, SocialNetwork.metrics),
      op("comments", {
        rows: SocialNetwork.comment,
        description: "Comments of posts, reels or photos by permalink.",
        price: perRows(121, 50),
        fresh: 1 * DAY,
        subjects: snPermalink,
        fields: {
          subjects: F.subjects(snPermalink, 5),
          includeReplies: F.withDefault(Schema.Boolean, true),
          sort: F.withDefault(F.oneOf("top", "threaded", "newest"), "top"),
          limit: F.limit(50, 1, 100)
        }
      })
    ]
  ),
  platform("web_search", "Web search engine: results, news, images, shopping, app reviews.", "none", [
    op("search", {
      rows: WebSearch.result,
      description: "Result pages of about ten results; supports site:, intitle: and OR.",
      kind: OpKind.Measure({ paging: "pages" }),
      price: PriceRule.PerPage({ credits: 1 }),
      fields: {
        query,
        pages: F.withDefault(F.int(1, 5), 1 as never),
        country: F.optional(F.Alpha2),
        language: F.optional(F.Bcp47),
        site: F.optional(F.text(120)),
        relatedToSite: F.optional(F.text(120)),
        since: F.optional(F.Day),
        until: F.optional(F.Day),
        fileTypes: F.list(F.text(8))
      },
      checkJsonSchema: dateOrderNote,
      check: dateOrder
    }),
    op("news", {
      rows: WebSearch.article,
      description: "News articles matching a query.",
      price: perRows(39, 20),
      fields: {
        query,
        postedWithin: F.withDefault(F.oneOf("1h", "1d", "7d", "1y", "any"), "7d"),
        country: F.withDefault(F.Alpha2, "US"),
        language: F.withDefault(F.Bcp47, "en"),
        limit: F.limit(20, 1, 100)
      }
    }),
    op("images", {
      rows: WebSearch.image,
      description: "Images matching a query.",
      price: perRows(20, 20),
      fields: { query, limit: F.limit(20, 1, 100) }
    }),
    op("shopping", {
      rows: WebSearch.offer,
      description: "Shopping offers matching a query.",
      price: perRows(58, 20),
      fields: {
        query,
        country: F.withDefault(F.Alpha2, "US"),
        language: F.withDefault(F.Bcp47, "en"),
        postedWithin: F.withDefault(F.oneOf("1h", "1d", "7d", "30d", "any"), "any"),
        limit: F.limit(20, 1, 100)
      }
    }),
    op("playReviews", {
      rows: WebSearch.appReview,
      description: "App store reviews of apps by package id or store URL.",
      price: perRows(5, 50),
      fresh: 1 * DAY,
      subjects: playApp,
      fields: {
        subjects: F.subjects(playApp, 5),
        country: F.withDefault(F.Alpha2, "US"),
        language: F.withDefault(F.Bcp47, "en"),
        sort: F.withDefault(F.oneOf("newest", "rating_high", "helpful"), "newest"),
        limit: F.limit(50, 1, 100)
      }
    })
  ]),
  platform("lodging_booking", "Hotel booking site: properties by hotel page URL.", "stay", [
    op("properties", {
      rows: Stays.property,
      description: "Property cards, priced for the stay when it has dates.",
      price: perSubject(2),
      fresh: 12 * HOUR,
      subjects: hotelPage,
      fields: { subjects: F.subjects(hotelPage, 10), stay: F.stay(F.LodgingStay) }
    }),
    op("search", {
      rows: Stays.property,
      description: "Properties in a location, filtered and sorted.",
      price: perRows(24, 12),
      fields: {
        location,
        stay: F.stay(F.LodgingStay),
        propertyType: F.optional(F.text(40)),
        minStars: F.optional(F.int(1, 5)),
        minRating: F.optional(F.number(0, 10)),
        priceMin: F.optional(F.int(0, Number.MAX_SAFE_INTEGER)),
        priceMax: F.optional(F.int(0, Number.MAX_SAFE_INTEGER)),
        sort: F.withDefault(F.oneOf("relevance", "price_low", "rating_high", "distance"), "relevance"),
        limit: F.limit(12, 1, 100)
      },
      label: (r) => String(r["location"]),
      checkJsonSchema: { description: "`priceMax` must not be below `priceMin`" },
      check: (r) =>
        typeof r["priceMin"] === "number" && typeof r["priceMax"] === "number" && r["priceMax"] < r["priceMin"]
          ? { path: ["priceMax"], message: "must not be below priceMin" }
          : true
    }),
    op("reviews", {
      rows: Stays.propertyReview,
      description: "Guest reviews of properties.",
      price: perRows(49, 25),
      fresh: 3 * DAY,
      subjects: hotelPage,
      fields: {
        subjects: F.subjects(hotelPage, 10),
        sort: F.withDefault(F.oneOf("relevance", "newest", "oldest", "rating_high", "rating_low"), "relevance"),
        since: F.optional(F.Day),
        scoreBands: F.list(F.oneOf("superb", "good", "average", "poor")),
        limit: F.limit(25, 1, 100)
      }
    }),
    history(hotelPage, Stays.propertyMetrics)
  ]),
  platform("travel_reviews", "Travel reviews site: hotels, restaurants, attractions by page URL.", "stay", [
    travelCards("hotels", { stay: F.stay(F.TravelStay) }),
    travelCards("restaurants", {}),
    travelCards("attractions", {}),
    travelSearch("Hotels", { stay: F.stay(F.TravelStay) }),
    travelSearch("Restaurants", {}),
    travelSearch("Attractions", {}),
    op("reviews", {
      rows: Stays.placeReview,
      description: "Reviews of places of any kind.",
      price: perRows(49, 25),
      fresh: 3 * DAY,
      subjects: travelPage,
      fields: {
        subjects: F.subjects(travelPage, 10),
        since: F.optional(F.Day),
        ratings: F.list(F.int(1, 5)),
        languages: F.list(F.Bcp47),
        limit: F.limit(25, 1, 100)
      }
    }),
    history(travelPage, Stays.placeMetrics)
  ]),
  platform("home_rentals", "Home-rental site: listings by URL or room id.", "stay", [
    op("listings", {
      rows: Stays.listing,
      description: "Listing cards; without stay dates a card comes back unpriced.",
      price: perSubject(2),
      fresh: 12 * HOUR,
      subjects: rentalListing,
      fields: { subjects: F.subjects(rentalListing, 10), stay: F.stay(F.RentalStay) }
    }),
    op("reviews", {
      rows: Stays.listingReview,
      description: "Guest reviews of listings.",
      price: perRows(49, 25),
      fresh: 3 * DAY,
      subjects: rentalListing,
      fields: {
        subjects: F.subjects(rentalListing, 10),
        locale: F.withDefault(F.text(10), "en-US"),
        limit: F.limit(25, 1, 100)
      }
    }),
    history(rentalListing, Stays.listingMetrics)
  ]),
  platform("fashion_marketplace", "Fashion marketplace: prices per storefront locale (read `currency`).", "none", [
    op("products", {
      rows: Stores.fashionItem,
      description: "Product cards by URL or item id, with currency.",
      price: perSubject(1),
      fresh: 1 * DAY,
      subjects: fashionItem,
      fields: { subjects: F.subjects(fashionItem, 10) }
    }),
    op("listing", {
      rows: Stores.fashionItem,
      description: "Products of a designer, category or sale page.",
      price: perRows(20, 20),
      subjects: S.urlOnly("a designer, category or sale page URL"),
      fields: { subject: F.subject(S.urlOnly("a designer, category or sale page URL")), limit: F.limit(20, 1, 100) }
    }),
    op("search", {
      rows: Stores.fashionItem,
      description: "Full product cards matching a keyword.",
      price: perRows(20, 20),
      fields: { query, limit: F.limit(20, 1, 100) }
    }),
    history(fashionItem, Stores.fashionMetrics)
  ]),
  platform("storefronts", "Hosted storefronts: any store by its URL.", "none", [
    op("products", {
      rows: Stores.storefrontProduct,
      description: "Products of stores, with price range, stock and variants.",
      price: perRows(25, 25),
      fresh: 1 * DAY,
      subjects: storefront,
      fields: { subjects: F.subjects(storefront, 5), limit: F.limit(25, 1, 100) }
    }),
    history(storefront, Stores.storefrontMetrics, {}, 5)
  ]),
  platform("explore", "Uncatalogued sources: raw, unverified rows, not kept as measured data.", "none", [
    op("sources", {
      rows: Special.exploreRow,
      description: "Best-matching sources with a per-row price (currently unavailable).",
      price: free,
      available: false,
      kind: OpKind.Run({ source: false }),
      fields: { query: F.optional(F.text(300)) }
    }),
    op("schema", {
      rows: Special.exploreRow,
      description: "A source's live input fields, a sample input and a credit estimate (currently unavailable).",
      price: free,
      available: false,
      kind: OpKind.Run({ source: false }),
      fields: { source: F.text(120) },
      label: (r) => String(r["source"])
    }),
    op("run", {
      rows: Special.exploreRow,
      description: "Runs a source with the given input; rows raw and unverified, billed per row returned.",
      price: PriceRule.PerSourceRow({ credits: 1, rows: 10 }),
      kind: OpKind.Run({ source: true }),
      fields: {
        source: F.text(120).annotations({
          description: "one of the sources served now, listed under explore run by GET /api/v1/platforms (D19)"
        }),
        input: F.withDefault(F.jsonObject({ maxDepth: 8, maxBytes: 8192 }), {} as never),
        limit: F.limit(10, 1, 100)
      },
      label: (r) => String(r["source"])
    })
  ]),
  platform("contacts", "Contact reveal: emails and phones of professional profiles, per org.", "none", [
    op("reveal", {
      rows: Special.contactDelivery,
      answerRow: Special.contactRow,
      description: "Email and phone per person; owned parts free, nothing-on-file never bought again.",
      kind: OpKind.Reveal({ parts: ["email", "phone"] }),
      price: PriceRule.PerPart({ parts: { email: 18, phone: 87 } }),
      subjects: contactPerson,
      fields: {
        subjects: F.subjects(contactPerson, 10),
        reveal: F.withDefault(
          Schema.Array(F.oneOf("email", "phone")).pipe(
            Schema.minItems(1, { message: () => "must name at least one part" }),
            Schema.maxItems(2, { message: () => "must name at most two parts" })
          ),
          ["email", "phone"] as never
        )
      }
    })
  ])
] as const

/** Every platform of the catalogue, in the specification's order. */
export const platforms: ReadonlyArray<PlatformDef> = typed

/** A platform of the typed catalogue. */
export type TypedPlatform = (typeof typed)[number]

const byPlatform = new Map(platforms.map((p) => [p.id, p]))
const byOp = new Map(platforms.flatMap((p) => p.ops.map((o) => [`${p.id}/${o.name}`, o] as const)))

/** The platform with this path segment. */
export const findPlatform = (id: string): PlatformDef | undefined => byPlatform.get(id)

/** The op of a platform. */
export const findOp = (platformId: string, name: string): OpDef | undefined => byOp.get(`${platformId}/${name}`)

const seriesOps = new Map(
  platforms.flatMap((p) => p.ops.filter((o) => o.kind._tag === "Series").map((o) => [p.id, o] as const))
)

/** The series op of a platform (its `history`), if it has one. */
export const historyOp = (platformId: string): OpDef | undefined => seriesOps.get(platformId)

/**
 * The JSON Schema (2020-12) of an op's request (`op` and its fields), generated from the Schema that validates it
 * (D13). With `definitions`, shared definitions go there (the OpenAPI document's `components/schemas`).
 */
export const requestJsonSchema = (
  def: OpDef,
  options?: { readonly definitions: Record<string, JSONSchema.JsonSchema7>; readonly definitionPath: string }
): JSONSchema.JsonSchema7Root => {
  const encoded = Schema.encodedBoundSchema(def.schema).ast
  const definitions: Record<string, JSONSchema.JsonSchema7> = options?.definitions ?? {}
  const schema = JSONSchema.fromAST(encoded, {
    definitions,
    ...(options ? { definitionPath: options.definitionPath } : {}),
    target: options ? "openApi3.1" : "jsonSchema2020-12"
  }) as unknown as Record<string, unknown>
  // the rules a refinement of a struct states (dropped by the generator) are added from the op's facets
  const properties = schema["properties"] as Record<string, Record<string, unknown>>
  if (def.scope === "store") properties["store"] = { ...properties["store"], ...F.storeJsonRule }
  if (def.scope === "stay") properties["stay"] = { ...properties["stay"], ...F.stayJsonRule }
  const out = def.requestRule ? { ...schema, ...def.requestRule } : schema
  if (options) return out as unknown as JSONSchema.JsonSchema7Root
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...(Object.keys(definitions).length > 0 ? { $defs: definitions } : {}),
    ...out
  } as JSONSchema.JsonSchema7Root
}

/** An explore source as the catalogue lists it under explore `run` (D19). */
export interface PublishedSource {
  readonly name: string
  readonly price: { readonly credits: number; readonly rows: number }
}

/**
 * The public catalogue (D13): every platform and op with price rule, window, availability and request schema;
 * explore `run` lists the sources served now with their per-row price (D19).
 */
export const publish = (sources: ReadonlyArray<PublishedSource> = []) =>
  platforms.map((p) => ({
    platform: p.id,
    description: p.description,
    ops: p.ops.map((o) => ({
      op: o.name,
      description: o.description,
      price: publishedPrice(o.price),
      freshnessSeconds: o.freshSeconds,
      available: o.available,
      units: o.units,
      subjects: o.subjectSpec?.describe ?? null,
      ...(o.metrics ? { metrics: o.metrics } : {}),
      ...(runsSource(o)
        ? { sources: sources.map((s) => ({ name: s.name, price: { credits: s.price.credits, rows: s.price.rows } })) }
        : {}),
      requestSchema: runsSource(o) ? withSources(requestJsonSchema(o), sources) : requestJsonSchema(o)
    }))
  }))

/** Whether an op runs a named, priced explore source (D19). */
export const runsSource = (o: OpDef): boolean => o.kind._tag === "Run" && o.kind.source

/** A request schema whose `source` is one of the sources served now (D19): a name outside them is refused (400). */
const withSources = (schema: JSONSchema.JsonSchema7Root, sources: ReadonlyArray<PublishedSource>) => {
  if (sources.length === 0) return schema
  const properties = (schema as { properties: Record<string, object> }).properties
  return {
    ...schema,
    properties: { ...properties, source: { ...properties["source"], enum: sources.map((s) => s.name) } }
  } as JSONSchema.JsonSchema7Root
}
