/** The platforms of the catalogue, in the specification's order, and the lookups by platform and op. */
import type { OpDef, PlatformDef } from "./Model.js"
import { contacts } from "./platforms/Contacts.js"
import { explore } from "./platforms/Explore.js"
import { fashionMarketplace } from "./platforms/FashionMarketplace.js"
import { forum } from "./platforms/Forum.js"
import { homeRentals } from "./platforms/HomeRentals.js"
import { jobsGlobal } from "./platforms/JobsGlobal.js"
import { jobsIn } from "./platforms/JobsIn.js"
import { lodgingBooking } from "./platforms/LodgingBooking.js"
import { maps } from "./platforms/Maps.js"
import { quickCommerceA, quickCommerceB } from "./platforms/QuickCommerce.js"
import { shortVideo } from "./platforms/ShortVideo.js"
import { socialNetwork } from "./platforms/SocialNetwork.js"
import { storefronts } from "./platforms/Storefronts.js"
import { travelReviews } from "./platforms/TravelReviews.js"
import { webSearch } from "./platforms/WebSearch.js"

/**
 * Every platform of the catalogue, in the specification's order, typed: each platform's id and each op's name,
 * request and row Schemas are kept in its type (the HTTP contract and the clients are typed from it).
 */ export const typed = [
  quickCommerceA,
  quickCommerceB,
  shortVideo,
  forum,
  maps,
  jobsIn,
  jobsGlobal,
  socialNetwork,
  webSearch,
  lodgingBooking,
  travelReviews,
  homeRentals,
  fashionMarketplace,
  storefronts,
  explore,
  contacts
] as const

/** Every platform of the catalogue, in the specification's order. */
export const platforms: ReadonlyArray<PlatformDef> = typed

/** A platform of the typed catalogue. */
export type TypedPlatform = (typeof typed)[number]

/** An op of the typed catalogue as `platform/op`: a table keyed by it has its keys checked by the compiler. */
export type OpPath = {
  [P in TypedPlatform as P["id"]]: `${P["id"]}/${P["ops"][number]["name"]}`
}[TypedPlatform["id"]]

// the one cast left here: a platform and its op vary together, which a template of two unions cannot say
const paths = new Map(platforms.flatMap((p) => p.ops.map((o) => [o, `${p.id}/${o.name}` as OpPath] as const)))

/** The path of an op of the catalogue. */
export const pathOf = (op: OpDef): OpPath | undefined => paths.get(op)

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
