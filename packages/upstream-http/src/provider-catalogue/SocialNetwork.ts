/**
 * The shipped provider catalogue's mappings for social_network (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
import { noDocs } from "./Reasons.js"

export const shipped = {} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "social_network.pages": noDocs,
  "social_network.posts": noDocs,
  "social_network.reels": noDocs,
  "social_network.reviews": noDocs,
  "social_network.followers": noDocs,
  "social_network.ads": noDocs,
  "social_network.events": noDocs,
  "social_network.marketplace": noDocs,
  "social_network.comments": noDocs
}
