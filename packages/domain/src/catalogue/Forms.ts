/** The subject forms of each platform (D3), and fields several of its ops share. */
import * as F from "../Fields.js"
import * as S from "../Subjects.js"

// Subject forms per platform (D3)
export const qcProduct = S.urlOnly("a product URL of the app")
export const svProfile: S.SubjectSpec = {
  describe: "a handle (letters, digits, '.', '_', '-'; '@' optional) or a profile URL",
  url: false,
  handle: true,
  fromUrl: S.firstOf(S.atSegment, S.firstSegment(["video", "tag", "music", "search", "discover", "explore"])),
  urlMustExtract: true
}
export const svPost = S.urlOnly("a post URL")
export const forumUser: S.SubjectSpec = {
  describe: "a user name or a profile URL",
  url: false,
  handle: true,
  fromUrl: S.segmentAfter("user", "u"),
  urlMustExtract: true
}
export const forumCommunity: S.SubjectSpec = {
  describe: "a community name or a community URL",
  url: false,
  handle: true,
  fromUrl: S.segmentAfter("r"),
  urlMustExtract: true
}
export const forumPost: S.SubjectSpec = {
  describe: "a post permalink or a bare post id (base-36)",
  url: false,
  handle: false,
  id: /^[a-z0-9]{1,12}$/,
  fromUrl: S.segmentAfter("comments"),
  urlMustExtract: true
}
export const mapsPlace: S.SubjectSpec = {
  describe: "a maps URL carrying a place id or cid, or a bare place id",
  url: false,
  handle: false,
  id: /^[A-Za-z0-9_:-]{10,200}$/,
  fromUrl: S.queryParam("place_id", "query_place_id", "cid", "ftid"),
  urlMustExtract: true
}
export const jobsInJob: S.SubjectSpec = {
  describe: "a numeric job id or a job URL",
  url: false,
  handle: false,
  id: /^[0-9]{4,20}$/,
  fromUrl: S.firstOf(S.queryParam("jobId", "job_id"), S.lastDigits(4)),
  urlMustExtract: true
}
export const jobsGlobalJob: S.SubjectSpec = {
  describe: "a job key or a job URL",
  url: true,
  handle: false,
  id: /^[A-Za-z0-9]{8,40}$/,
  fromUrl: S.queryParam("jk", "vjk")
}
export const snPage: S.SubjectSpec = {
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
export const snPermalink = S.urlOnly("a post, reel or photo permalink")
export const playApp: S.SubjectSpec = {
  describe: "an app package id (e.g. com.example.app) or a store URL",
  url: false,
  handle: false,
  id: /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/,
  fromUrl: S.queryParam("id"),
  urlMustExtract: true
}
export const hotelPage = S.urlOnly("a hotel page URL")
export const travelPage = S.urlOnly("a hotel, restaurant or attraction page URL")
export const rentalListing: S.SubjectSpec = {
  describe: "a listing URL or a room id",
  url: true,
  handle: false,
  id: /^[0-9]{3,20}$/,
  fromUrl: S.segmentAfter("rooms")
}
export const fashionItem: S.SubjectSpec = {
  describe: "a product URL or a numeric item id",
  url: true,
  handle: false,
  id: /^[0-9]{4,20}$/,
  fromUrl: S.lastDigits(5)
}
export const storefront: S.SubjectSpec = {
  describe: "a store URL (normalized to its origin)",
  url: false,
  handle: false,
  fromUrl: (u) => `${u.protocol}//${u.host}`,
  urlMustExtract: true
}
export const contactPerson: S.SubjectSpec = {
  describe: "a professional-network profile handle (the /in/ path segment) or profile URL",
  url: false,
  handle: true,
  fromUrl: S.segmentAfter("in"),
  urlMustExtract: true
}

export const jobsGlobalCountry = F.withDefault(
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
