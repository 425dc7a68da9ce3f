/**
 * The shipped provider catalogue's mappings for short_video (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
import { noDocs } from "./Reasons.js"

export const shipped = {} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "short_video.profiles": noDocs,
  "short_video.posts": noDocs,
  "short_video.videos": noDocs,
  "short_video.searchPosts": noDocs,
  "short_video.search": noDocs,
  "short_video.comments": noDocs,
  "short_video.followers": noDocs,
  "short_video.shop": noDocs
}
