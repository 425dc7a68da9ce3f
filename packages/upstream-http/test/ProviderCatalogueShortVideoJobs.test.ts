// Issue 20: the shipped provider catalogue for short_video, jobs_in and jobs_global. Each mapping maps its actor's
// recorded-shape items (test/fixtures/provider/<actor>.json, built from the actor's documented output) to rows the
// op's row Schema accepts, with the values expected, and builds the actor input from a request; the ops left
// unmapped are listed with their reason.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue } from "@pdr/domain"
import { Either } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import { decodeRow, unit } from "./support/Adapters.js"
import { mapped, recorded } from "./support/Catalogue.js"

const mappedOps = [
  "short_video.profiles",
  "short_video.posts",
  "short_video.search",
  "short_video.comments",
  "short_video.followers",
  "short_video.videos",
  "short_video.shop",
  "short_video.searchPosts",
  "jobs_in.search",
  "jobs_global.search"
]
const unmappedOps = ["jobs_global.jobs"]

describe("ProviderCatalogue: short_video and jobs", () => {
  it("the mapped ops pass Mapping.check and cite their page; the others are listed with a reason", () => {
    for (const key of mappedOps) {
      const m = ProviderCatalogue.mappings[key]
      assert.isDefined(m, key)
      assert.isTrue(Either.isRight(Mapping.check(key, m!)), key)
      assert.match(m!.docs ?? "", /^https:\/\/apify\.com\/[\w.-]+\/[\w.-]+$/, key)
      assert.isFalse(key in ProviderCatalogue.unmapped, key)
    }
    for (const key of unmappedOps) {
      assert.isFalse(key in ProviderCatalogue.mappings, key)
      assert.isAbove((ProviderCatalogue.unmapped[key] ?? "").length, 40, key)
    }
  })

  it("short_video.profiles (clockworks~tiktok-profile-scraper): the card from authorMeta", () => {
    const { rows, errors } = mapped("short_video.profiles")
    assert.deepStrictEqual(rows, [
      {
        handle: "nasaofficial",
        name: "NASA",
        followers: 2049,
        following: 4,
        totalLikes: 135,
        videos: 0,
        verified: false,
        bio: "National Aeronautics Space Association"
      }
    ])
    assert.deepStrictEqual(errors, [])
    const m = ProviderCatalogue.mappings["short_video.profiles"]!
    const u = unit("short_video", "profiles", { subjects: ["nasaofficial"] }, "nasaofficial")
    assert.deepStrictEqual(Mapping.input(m.input, u), { profiles: ["nasaofficial"] })
  })

  it("short_video.posts (funny_ground~tiktok-creator-videos): a creator's videos, the date from createTime else createTimeUnix", () => {
    const { rows, errors } = mapped("short_video.posts")
    assert.deepStrictEqual(rows, [
      {
        url: "https://www.tiktok.com/@zachking/video/7655004069190192398",
        caption: "Wait for it #magic #illusion",
        views: 4800000,
        likes: 512300,
        comments: 3120,
        shares: 18400,
        durationSec: 27,
        postedAt: "2026-09-14T18:03:11.000Z",
        position: 1
      },
      {
        url: "https://www.tiktok.com/@zachking/video/7651220914560781611",
        caption: "",
        views: 902000,
        likes: 61200,
        comments: 415,
        shares: 1300,
        durationSec: 15,
        postedAt: "2026-09-05T13:20:00.000Z",
        position: 2
      }
    ])
    assert.deepStrictEqual(errors, [])
    const m = ProviderCatalogue.mappings["short_video.posts"]!
    assert.strictEqual(m.usdPerItem, 0.0005)
    assert.strictEqual(m.usdPerRun, 0.00005)
    const u = unit("short_video", "posts", { subject: "zachking", limit: 30 }, "zachking")
    assert.deepStrictEqual(Mapping.input(m.input, u), { creators: ["zachking"], maxVideos: 30 })
    const byDefault = unit("short_video", "posts", { subject: "zachking" }, "zachking")
    assert.deepStrictEqual(Mapping.input(m.input, byDefault), { creators: ["zachking"], maxVideos: 15 })
  })

  it("short_video.videos (powerai~tiktok-video-scraper): the card of a post by URL, the author read from its URL, shares null", () => {
    const { rows, errors } = mapped("short_video.videos")
    assert.deepStrictEqual(rows, [
      {
        url: "https://www.tiktok.com/@apifyoffice/video/7200360993149553925",
        caption: "How we work at Apify #apify #webscraping",
        author: "apifyoffice",
        views: 58210,
        likes: 1432,
        comments: 37,
        shares: null,
        durationSec: 23,
        sound: "original sound - apifyoffice",
        postedAt: "2026-02-16T09:41:07.000Z"
      }
    ])
    assert.deepStrictEqual(errors, [])
    const m = ProviderCatalogue.mappings["short_video.videos"]!
    assert.strictEqual(m.usdPerItem, 0.00599)
    assert.strictEqual(m.usdPerRun, 0.01)
    const post = "https://www.tiktok.com/@apifyoffice/video/7200360993149553925"
    const u = unit("short_video", "videos", { subjects: [post] }, post)
    assert.deepStrictEqual(Mapping.input(m.input, u), { videoUrls: [post], includeRelated: false })
    // a video URL without the handle (a short link) gives an empty author, not another account's
    const short = Mapping.rowsOf(m, { videoUrl: "https://vm.tiktok.com/ZMabc123/", views: 1 }, ["shares"])
    assert.strictEqual(short[0]!["author"], "")
    assert.strictEqual(short[0]!["shares"], null)
  })

  it("short_video.shop (datacortex~tiktok-shop-search-scraper): products for a query, priced in USD, its error row not a row", () => {
    const { rows, errors } = mapped("short_video.shop")
    assert.deepStrictEqual(rows, [
      {
        productId: "1731987113638072822",
        title: "junk phone case",
        price: 7.99,
        currency: "USD",
        sold: 10432,
        rating: 4.6,
        shop: "CaseCraft Store",
        position: 1
      },
      {
        productId: "1729800000000000001",
        title: "Clear MagSafe case for iPhone 16",
        price: 12.5,
        currency: "USD",
        sold: 1500,
        rating: 4.2,
        shop: "Northwind Accessories",
        position: 2
      }
    ])
    assert.deepStrictEqual(errors, [{ text: "The search page could not be read for this term", notFound: false }])
    const m = ProviderCatalogue.mappings["short_video.shop"]!
    assert.strictEqual(m.usdPerItem, 0.0025)
    assert.strictEqual(m.usdPerRun, 0.001)
    const u = unit("short_video", "shop", { query: "phone case", limit: 10 })
    assert.deepStrictEqual(Mapping.input(m.input, u), { keywords: ["phone case"] })
    // a row of another type than product is not a row
    assert.deepStrictEqual(Mapping.rowsOf(m, { type: "summary", productId: "1" }, []), [])
  })

  it("short_video.searchPosts (thescrappa~tiktok-search-scraper): posts of a query or a hashtag, the URL built from handle and id, sound refused", () => {
    const { rows, errors } = mapped("short_video.searchPosts")
    assert.deepStrictEqual(rows, [
      {
        url: "https://www.tiktok.com/@tiktok/video/7568510388342443294",
        caption: "Example TikTok video caption",
        views: 1234567,
        likes: 12345,
        postedAt: "2024-11-09T14:19:53.000Z",
        position: 1
      },
      {
        url: "https://www.tiktok.com/@hoops.daily_/video/7571203318874401566",
        caption: "Buzzer beater from half court #basketball",
        views: 2710,
        likes: 88,
        postedAt: "2025-11-01T14:00:00.000Z",
        position: 2
      }
    ])
    assert.deepStrictEqual(errors, [])
    const m = ProviderCatalogue.mappings["short_video.searchPosts"]!
    assert.strictEqual(m.usdPerItem, 0.0002)
    assert.strictEqual(m.usdPerRun, 0)
    assert.strictEqual(m.maxItems, 50)
    assert.deepStrictEqual(Object.keys(m.refuses ?? {}), ["soundUrl"])
    // exactly one of the two search inputs reaches the actor: a query as keywords, a hashtag as "#<tag>" in `query`
    const byQuery = unit("short_video", "searchPosts", { query: "basketball highlights", limit: 30 })
    assert.deepStrictEqual(Mapping.input(m.input, byQuery), { keywords: "basketball highlights", count: 30 })
    const byTag = unit("short_video", "searchPosts", { hashtag: "skincare" })
    assert.deepStrictEqual(Mapping.input(m.input, byTag), { query: "#skincare", count: 20 })
    const hashed = unit("short_video", "searchPosts", { hashtag: "#skincare", limit: 5 })
    assert.deepStrictEqual(Mapping.input(m.input, hashed), { query: "#skincare", count: 5 }, "a # given is not doubled")
    // an item with no aweme_id is linked by its video_id; an item with neither handle nor id has no URL: it fails
    const fields = Mapping.rowFields(Catalogue.findOp("short_video", "searchPosts")!).nullable
    const byVideoId = Mapping.rowsOf(m, { video_id: "71", author: { unique_id: "a_b" }, create_time: 1 }, fields)
    assert.strictEqual(byVideoId[0]!["url"], "https://www.tiktok.com/@a_b/video/71")
    assert.strictEqual(byVideoId[0]!["caption"], "")
    const anonymous = Mapping.rowsOf(m, { aweme_id: "71", author: { nickname: "x" } }, fields)
    assert.isNull(anonymous[0]!["url"])
    assert.throws(() => decodeRow("short_video", "searchPosts", { ...anonymous[0], position: 1 }))
  })

  it("short_video.search (fetch_cat~tiktok-user-search-scraper): accounts for a query", () => {
    const { rows } = mapped("short_video.search")
    assert.deepStrictEqual(rows, [
      {
        handle: "coffee01973",
        name: "coffee",
        followers: 91100,
        following: 8,
        totalLikes: 6700000,
        videos: 184,
        verified: false,
        bio: "Hi! My name is Coffee!"
      }
    ])
    const m = ProviderCatalogue.mappings["short_video.search"]!
    const u = unit("short_video", "search", { query: "coffee", limit: 10 })
    assert.deepStrictEqual(Mapping.input(m.input, u), { queries: ["coffee"], maxUsersPerQuery: 10 })
  })

  it("short_video.comments (happy_b~tiktok-comments-scraper): top-level comments, replies skipped", () => {
    const { rows } = mapped("short_video.comments")
    assert.deepStrictEqual(rows, [
      {
        commentId: "7617943801550832402",
        author: "khaby.lame",
        text: "This is hilarious 😂",
        likes: 3998,
        replies: 20,
        postedAt: "2026-03-16T19:52:57.000Z",
        position: 1
      },
      {
        commentId: "7617960000111222333",
        author: "travel.tom",
        text: "Where is this?",
        likes: 5,
        replies: 1,
        postedAt: "2026-03-17T08:00:00.000Z",
        position: 2
      }
    ])
    const m = ProviderCatalogue.mappings["short_video.comments"]!
    const post = "https://www.tiktok.com/@khaby.lame/video/7617913537561693470"
    const u = unit("short_video", "comments", { subjects: [post], limit: 50 }, post)
    assert.deepStrictEqual(Mapping.input(m.input, u), { videoUrls: [post] })
  })

  it("short_video.followers (dami_studio~tiktok-followers-scraper): the accounts of the list, its direction chosen", () => {
    const { rows } = mapped("short_video.followers")
    assert.deepStrictEqual(rows, [
      { handle: "rocket.fan", name: "Rocket Fan", followers: 312, verified: false, position: 1 },
      { handle: "esa", name: "European Space Agency", followers: 1200000, verified: true, position: 2 }
    ])
    const m = ProviderCatalogue.mappings["short_video.followers"]!
    const following = unit(
      "short_video",
      "followers",
      { subjects: ["nasa"], direction: "following", limit: 10 },
      "nasa"
    )
    assert.deepStrictEqual(Mapping.input(m.input, following), {
      profiles: ["nasa"],
      listType: "following",
      maxItemsPerProfile: 10
    })
    const followers = unit("short_video", "followers", { subjects: ["nasa"] }, "nasa")
    assert.deepStrictEqual(Mapping.input(m.input, followers), {
      profiles: ["nasa"],
      listType: "followers",
      maxItemsPerProfile: 25
    })
  })

  it("jobs_in.search (prodiger~naukri-scraper): jobs of a keyword, counts the actor does not measure null", () => {
    const { rows, errors } = mapped("jobs_in.search")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        jobId: "010626500123",
        title: "Python Developer",
        company: "Acme Analytics",
        location: "Bengaluru",
        experience: "3-6 Yrs",
        salaryLakhs: null,
        applicants: null,
        views: null,
        vacancies: 2,
        url: "https://www.naukri.com/job-listings-python-developer-acme-analytics-bengaluru-3-to-6-years-010626500123",
        postedAt: "2026-06-01T00:00:00.000Z",
        details: "Build and maintain data services in Python.",
        position: 1
      },
      {
        jobId: "290526007781",
        title: "Senior Python Engineer",
        company: "Orbit Fintech",
        location: "Mumbai",
        experience: "5-10 Yrs",
        salaryLakhs: null,
        applicants: null,
        views: null,
        vacancies: null,
        url: "https://www.naukri.com/job-listings-senior-python-engineer-orbit-fintech-mumbai-5-to-10-years-290526007781",
        postedAt: "2026-05-29T00:00:00.000Z",
        details: "",
        position: 2
      }
    ])
    const m = ProviderCatalogue.mappings["jobs_in.search"]!
    assert.strictEqual(m.usdPerItem, 0.002)
    assert.strictEqual(m.usdPerRun, 0.001)
    const newest = unit("jobs_in", "search", {
      query: "python developer",
      sort: "newest",
      workplace: ["onsite"],
      locations: ["Bengaluru", "Pune"],
      limit: 80
    })
    assert.deepStrictEqual(Mapping.input(m.input, newest), {
      keyword: "python developer",
      location: ["Bengaluru", "Pune"],
      maxJobs: 80,
      sortBy: "date",
      workMode: "office"
    })
    // by default: relevance, no work mode (several modes, or none, leave the actor's own default: any)
    // and no location: an empty list is no filter, left out of the input
    const byDefault = unit("jobs_in", "search", {
      query: "python developer",
      workplace: ["remote", "hybrid"],
      locations: []
    })
    assert.deepStrictEqual(Mapping.input(m.input, byDefault), {
      keyword: "python developer",
      maxJobs: 50,
      sortBy: "relevance"
    })
  })
  it("jobs_global.search (thescrappa~indeed-jobs-scraper): jobs of a query in the country searched", () => {
    const gb = unit("jobs_global", "search", { query: "support engineer", country: "GB", location: "London" })
    const { rows, errors } = mapped("jobs_global.search", gb.request)
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        jobKey: "4b7d2e91c0a3f856",
        title: "Software Engineer",
        company: "Example Corp",
        location: "New York, NY",
        country: "GB",
        employmentType: "full_time",
        remote: false,
        postedAt: "2026-05-01T12:00:00.000Z",
        position: 1
      },
      {
        jobKey: "9e03a5c7d12b4f60",
        title: "Support Engineer",
        company: "Northwind Labs",
        location: "Remote",
        country: "GB",
        employmentType: "part_time",
        remote: true,
        postedAt: "2026-04-28T08:30:00.000Z",
        position: 2
      }
    ])
    const m = ProviderCatalogue.mappings["jobs_global.search"]!
    assert.strictEqual(m.usdPerItem, 0.0003)
    assert.strictEqual(m.usdPerRun, 0)
    // one employment type is the actor's job_type, sort newest its date sort, the rows asked its limit
    const one = unit("jobs_global", "search", {
      query: "nurse",
      location: "Manchester",
      country: "GB",
      employmentType: ["part_time"],
      sort: "newest",
      limit: 40
    })
    assert.deepStrictEqual(Mapping.input(m.input, one), {
      query: "nurse",
      location: "Manchester",
      country: "GB",
      job_type: "part_time",
      sort: "date",
      limit: 40
    })
    // several types, or one the actor does not take (temporary), leave job_type out; no location is left out too
    for (const employmentType of [["full_time", "contract"], ["temporary"], []]) {
      const input = Mapping.input(m.input, unit("jobs_global", "search", { query: "nurse", employmentType })) as Record<
        string,
        unknown
      >
      assert.deepStrictEqual(
        input,
        { query: "nurse", country: "US", sort: "relevance", limit: 20 },
        String(employmentType)
      )
    }
  })

  it("jobs_global.search: the job key falls back to the item's id, an untyped job has an empty type, and an item without its date or remote flag is refused", () => {
    const m = ProviderCatalogue.mappings["jobs_global.search"]!
    const [first] = recorded(m.actor) as ReadonlyArray<Record<string, unknown>>
    const request = unit("jobs_global", "search", { query: "engineer" }).request
    const rowOf = (item: Record<string, unknown>) => Mapping.rowsOf(m, item, [], request)[0]!
    // an apply URL without a jk parameter: the job key is the item's id
    const external = rowOf({ ...first, apply_url: "https://careers.example.com/jobs/77" })
    assert.strictEqual(external["jobKey"], "4b7d2e91c0a3f856")
    // attributes naming no documented type: an empty type; the first documented type wins
    assert.strictEqual(rowOf({ ...first, attributes: ["Urgently hiring"] })["employmentType"], "")
    assert.strictEqual(
      rowOf({ ...first, attributes: ["Health insurance", "Contract", "Full-time"] })["employmentType"],
      "contract"
    )
    // the row Schema refuses a job without its posting date, or without the remote flag
    const { date_published: _, ...undated } = first!
    assert.throws(() => decodeRow("jobs_global", "search", { ...rowOf(undated), position: 1 }))
    const location = { ...(first!["location"] as Record<string, unknown>) }
    delete location["is_remote"]
    assert.throws(() => decodeRow("jobs_global", "search", { ...rowOf({ ...first, location }), position: 1 }))
    assert.doesNotThrow(() => decodeRow("jobs_global", "search", { ...rowOf(first!), position: 1 }))
  })
})
