// Issue 20: the shipped provider catalogue's mappings for maps, social_network and web_search images and shopping. Each maps its
// actor's recorded-shape items (test/fixtures/provider/<actor>.json, built from the actor's documented output) to rows
// the op's row Schema accepts, with the values expected; the actor input built from a request is shown where the
// request shapes it.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue } from "@pdr/domain"
import { Either } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import { decodeRow, unit } from "./support/Adapters.js"
import { mapped } from "./support/Catalogue.js"

const mapping = (key: string) => ProviderCatalogue.mappings[key]!

describe("ProviderCatalogue: maps, social_network, web_search images and shopping", () => {
  it("every mapping here passes the check and is not also listed as unmapped", () => {
    for (const key of [
      "maps.places",
      "maps.search",
      "maps.reviews",
      "social_network.pages",
      "social_network.posts",
      "social_network.reels",
      "social_network.comments",
      "social_network.reviews",
      "social_network.ads",
      "social_network.followers",
      "web_search.images",
      "web_search.shopping"
    ]) {
      assert.isTrue(Either.isRight(Mapping.check(key, mapping(key))), key)
      assert.isFalse(key in ProviderCatalogue.unmapped, key)
    }
    for (const key of ["social_network.events", "social_network.marketplace"])
      assert.match(ProviderCatalogue.unmapped[key] ?? "", /\w+\/\w+|\w+'s/, key)
  })

  it("social_network.marketplace: postedAt is nullable (D60o), so a mapping of an actor without a listing date passes the start check and its rows are valid", () => {
    const op = "social_network.marketplace"
    const fields = Mapping.rowFields(Catalogue.findOp("social_network", "marketplace")!)
    assert.include(fields.nullable, "postedAt")
    assert.notInclude(fields.required, "postedAt")
    // an operator's mapping (PROVIDER_MAPPINGS) that maps every field but the date: not refused at start
    const m = Either.getOrThrow(
      Mapping.decodeMappings(
        {
          [op]: {
            actor: "a~b",
            usdPerItem: 0.001,
            input: { startUrls: [{ url: "$subject" }], maxItems: "$rows" },
            rows: {
              listingId: { path: "id", as: "string" },
              title: "title",
              price: { path: "price", as: "number" },
              currency: "currency",
              location: "location"
            }
          }
        },
        "f"
      )
    )[op]!
    assert.isTrue(Either.isRight(Mapping.check(op, m)))
    const [row] = Mapping.rowsOf(
      m,
      { id: 123, title: "Bike", price: "80", currency: "USD", location: "Austin, TX" },
      fields.nullable
    )
    assert.strictEqual(row!["postedAt"], null)
    const decoded = decodeRow("social_network", "marketplace", { ...row, position: 1 })
    assert.strictEqual(decoded.postedAt, null)
    assert.strictEqual(decoded.price, 80)
    // a date the actor does give must still be an instant
    assert.throws(() => decodeRow("social_network", "marketplace", { ...row, position: 1, postedAt: "yesterday" }))
  })

  it("maps.places (compass~crawler-google-places): the place card from the documented item, hours null", () => {
    const { rows } = mapped("maps.places")
    assert.deepStrictEqual(rows, [
      {
        placeId: "ChIJJXTKRpmVC0cREdfm_mnO1e8",
        name: "Pet Heroes shop",
        address: "V Horkách 4, 140 00 Praha 4-Nusle, Czechia",
        lat: 50.0616625,
        lon: 14.4470878,
        rating: 4.8,
        reviewCount: 17,
        categories: ["Non-governmental organization"],
        phone: "+420 725 723 947",
        website: "http://www.petheroes.cz/",
        hours: null,
        liveOccupancyPercent: null
      },
      {
        placeId: "ChIJuxlGAU6UC0cRI_jkTCUIboA",
        name: "Sdružení na ochranu zvířat v krajní nouzi",
        address: "Na Pláni 2006, 150 00 Praha 5, Czechia",
        lat: 50.062872,
        lon: 14.3958755,
        rating: 4.3,
        reviewCount: 40,
        categories: ["Pet adoption service"],
        phone: "+420 603 225 948",
        website: "https://www.kocici-utulek.cz/",
        hours: null,
        liveOccupancyPercent: null
      }
    ])
    const u = unit("maps", "places", { subjects: ["ChIJJXTKRpmVC0cREdfm_mnO1e8"] }, "ChIJJXTKRpmVC0cREdfm_mnO1e8")
    assert.deepStrictEqual(Mapping.input(mapping("maps.places").input, u), {
      placeIds: ["ChIJJXTKRpmVC0cREdfm_mnO1e8"],
      language: "en"
    })
  })

  it("maps.places: a place item without a phone, website or categories maps them to null and []", () => {
    const m = mapping("maps.places")
    const [row] = Mapping.rowsOf(
      m,
      {
        title: "Bench",
        placeId: "ChIJ0000000000000000000",
        location: { lat: 1.5, lng: -2.25 },
        totalScore: 4,
        reviewsCount: null,
        phone: null,
        website: null
      },
      ["phone", "website", "hours", "liveOccupancyPercent"]
    )
    assert.deepStrictEqual(row, {
      placeId: "ChIJ0000000000000000000",
      name: "Bench",
      address: "",
      lat: 1.5,
      lon: -2.25,
      rating: 4,
      reviewCount: 0,
      categories: [],
      phone: null,
      website: null,
      hours: null,
      liveOccupancyPercent: null
    })
  })

  it("maps.search (compass~crawler-google-places): the same cards; the query, location, limit and filters as input", () => {
    const { rows } = mapped("maps.search")
    assert.deepStrictEqual(
      rows.map((r) => [r["placeId"], r["name"], r["rating"]]),
      [
        ["ChIJJXTKRpmVC0cREdfm_mnO1e8", "Pet Heroes shop", 4.8],
        ["ChIJuxlGAU6UC0cRI_jkTCUIboA", "Sdružení na ochranu zvířat v krajní nouzi", 4.3]
      ]
    )
    const m = mapping("maps.search")
    const filtered = unit("maps", "search", {
      query: "pet shelter",
      location: "Prague",
      minRating: "4.5",
      website: "with",
      limit: 20
    })
    assert.deepStrictEqual(Mapping.input(m.input, filtered), {
      searchStringsArray: ["pet shelter"],
      locationQuery: "Prague",
      maxCrawledPlacesPerSearch: 20,
      language: "en",
      placeMinimumStars: "fourAndHalf",
      website: "withWebsite"
    })
    const plain = unit("maps", "search", { query: "pet shelter", location: "Prague" })
    assert.deepStrictEqual(Mapping.input(m.input, plain), {
      searchStringsArray: ["pet shelter"],
      locationQuery: "Prague",
      maxCrawledPlacesPerSearch: 10,
      language: "en",
      website: "allPlaces"
    })
  })

  it("maps.reviews (reapx~google-maps-review-scraper): one row per review item, the instant from publishedAtMs", () => {
    const { rows } = mapped("maps.reviews")
    assert.deepStrictEqual(rows, [
      {
        reviewId: "ChZDSUhNMG9nS0VJQ0FnSUR3eTVLVmZBEAE",
        author: "Claire Martin",
        rating: 5,
        title: "",
        text: "Lovely terrace and friendly staff.",
        postedAt: "2024-05-20T13:40:00.000Z",
        position: 1
      },
      {
        reviewId: "ChdDSUhNMG9nS0VJQ0FnSURncDRmRzF3RRAB",
        author: "J. Weber",
        rating: 3,
        title: "",
        text: "",
        postedAt: "2024-04-29T10:00:00.000Z",
        position: 2
      }
    ])
    const u = unit(
      "maps",
      "reviews",
      { subjects: ["ChIJaYIUUk9u5kcRfAhRNL_ZJgw"], limit: 40 },
      "ChIJaYIUUk9u5kcRfAhRNL_ZJgw"
    )
    assert.deepStrictEqual(Mapping.input(mapping("maps.reviews").input, u), {
      startUrls: ["https://www.google.com/maps/place/?q=place_id:ChIJaYIUUk9u5kcRfAhRNL_ZJgw"],
      maxItems: 40,
      maxReviewsPerPlace: 40
    })
  })

  it("social_network.pages (apify~facebook-pages-scraper): the card, its reviews and recommend share from the rating text; talkingAbout and verified null", () => {
    const { rows, errors } = mapped("social_network.pages")
    assert.deepStrictEqual(rows, [
      {
        name: "Copper Kettle",
        category: "Restaurant, Family style restaurant",
        followers: 5230,
        likes: 4812,
        talkingAbout: null,
        reviewCount: 839,
        recommendPercent: 94,
        website: "https://www.copperkettle.example/",
        verified: null
      },
      {
        name: "NASA - National Aeronautics and Space Administration",
        category: "Government organization",
        followers: 28000000,
        likes: 25000000,
        talkingAbout: null,
        reviewCount: null,
        recommendPercent: null,
        website: null,
        verified: null
      }
    ])
    assert.deepStrictEqual(errors, [])
    const m = mapping("social_network.pages")
    assert.strictEqual(m.usdPerItem, 0.0066)
    const u = unit("social_network", "pages", { subjects: ["copperkettleyqr"] }, "copperkettleyqr")
    assert.deepStrictEqual(Mapping.input(m.input, u), {
      startUrls: [{ url: "https://www.facebook.com/copperkettleyqr/" }]
    })
  })

  it("social_network.pages: the review count from the rating text when ratingCount is absent; a page without likes gives no count", () => {
    const m = mapping("social_network.pages")
    const fields = ["talkingAbout", "reviewCount", "recommendPercent", "website", "verified"]
    const [row] = Mapping.rowsOf(
      m,
      { title: "Cafe", categories: ["Cafe"], followers: "1,204", likes: 980, rating: "81% recommend (1,024 Reviews)" },
      fields
    )
    assert.strictEqual(row?.["reviewCount"], 1024)
    assert.strictEqual(row?.["recommendPercent"], 81)
    assert.strictEqual(row?.["followers"], 1204)
    // a rating in stars is not a recommend share
    const [stars] = Mapping.rowsOf(
      m,
      { title: "Inn", followers: 5, likes: 5, rating: "4.6 out of 5 (12 Reviews)" },
      fields
    )
    assert.strictEqual(stars?.["recommendPercent"], null)
    assert.strictEqual(stars?.["reviewCount"], 12)
    assert.strictEqual(stars?.["category"], "")
    // no likes: null, which the row refuses (a required count), never 0
    const [bare] = Mapping.rowsOf(m, { title: "New page", followers: 10 }, fields)
    assert.strictEqual(bare?.["likes"], null)
  })

  it("social_network.posts (alfalfa~facebook-posts-scraper): the post, its date and counts; the page URL as input", () => {
    const { rows } = mapped("social_network.posts")
    assert.deepStrictEqual(rows, [
      {
        permalink: "https://www.facebook.com/TED/posts/pfbid02abcExample",
        text: "Ideas change everything. Watch the full talk on TED.com.",
        postedAt: "2024-05-14T16:00:03.000Z",
        reactions: 1240,
        comments: 87,
        shares: 152,
        position: 1
      },
      {
        permalink: "https://www.facebook.com/TED/videos/1234567890123456",
        text: "What makes a good life?",
        postedAt: "2024-05-13T18:30:00.000Z",
        reactions: 530,
        comments: 41,
        shares: 0,
        position: 2
      }
    ])
    const u = unit("social_network", "posts", { subject: "TED", limit: 30 }, "TED")
    assert.deepStrictEqual(Mapping.input(mapping("social_network.posts").input, u), {
      startUrls: [{ url: "https://www.facebook.com/TED/" }],
      resultsLimit: 30
    })
  })

  it("social_network.reels (fetch_cat~facebook-reels-scraper): reel URL or else post URL, a missing count is 0 (a required count)", () => {
    const { rows } = mapped("social_network.reels")
    assert.deepStrictEqual(rows, [
      {
        permalink: "https://www.facebook.com/reel/3292750537522330/",
        caption: "When the cat hears the treat bag",
        plays: 184000,
        reactions: 5630,
        comments: 112,
        postedAt: "2024-04-02T09:12:45.000Z",
        position: 1
      },
      {
        permalink: "https://www.facebook.com/9GAGCute/videos/1187654321098765/",
        caption: "",
        plays: 9100,
        reactions: 342,
        comments: 0,
        postedAt: "2024-03-28T20:00:00.000Z",
        position: 2
      }
    ])
    const u = unit("social_network", "reels", { subject: "9GAGCute" }, "9GAGCute")
    assert.deepStrictEqual(Mapping.input(mapping("social_network.reels").input, u), { usernames: ["9GAGCute"] })
  })

  it("web_search.images (johnvc~google-images-api): image, page and size; the query and limit as input", () => {
    const { rows } = mapped("web_search.images")
    assert.deepStrictEqual(rows, [
      {
        title: "Mount Fuji - Wikipedia",
        imageUrl: "https://upload.wikimedia.org/wikipedia/commons/f/f8/Mount_Fuji_from_Lake_Kawaguchi.jpg",
        pageUrl: "https://en.wikipedia.org/wiki/Mount_Fuji",
        width: 1920,
        height: 1280,
        position: 1
      },
      {
        title: "Climbing Mount Fuji: a beginner's guide",
        imageUrl: "https://www.japan-guide.com/g18/6901_01.jpg",
        pageUrl: "https://www.japan-guide.com/e/e6901.html",
        width: 640,
        height: 427,
        position: 2
      }
    ])
    const u = unit("web_search", "images", { query: "mount fuji", limit: 50 })
    assert.deepStrictEqual(Mapping.input(mapping("web_search.images").input, u), {
      queries: ["mount fuji"],
      maxResultsPerQuery: 50,
      gl: "us",
      hl: "en"
    })
  })

  it("social_network.comments (mina_safwat~facebook-comments-scraper): the comment, its author, instant and reactions; the permalink as input", () => {
    const { rows } = mapped("social_network.comments")
    assert.deepStrictEqual(rows, [
      {
        commentId: "1187654321098765_123456789012345",
        author: "Ana Souza",
        text: "Loved this talk, sharing it with my class.",
        reactions: 14,
        postedAt: "2024-05-14T15:20:00.000Z",
        position: 1
      },
      {
        commentId: "1187654321098765_223456789012346",
        author: "Tom Becker",
        text: "Where can I find the transcript?",
        reactions: 0,
        postedAt: "2024-05-14T16:20:00.000Z",
        position: 2
      }
    ])
    const post = "https://www.facebook.com/TED/posts/1187654321098765"
    const u = unit("social_network", "comments", { subjects: [post], limit: 30 }, post)
    assert.deepStrictEqual(Mapping.input(mapping("social_network.comments").input, u), {
      start_urls: [{ url: post }],
      comments_limit: 30
    })
  })

  it("social_network.reviews (scrapingmonkey~facebook-page-reviews-scraper): the reviewer, the verdict, the text and the instant; the page as input", () => {
    const { rows } = mapped("social_network.reviews")
    assert.deepStrictEqual(rows, [
      {
        reviewer: "Ana Souza",
        recommends: true,
        text: "Great support team, they answered within an hour.",
        postedAt: "2024-05-14T15:20:00.000Z",
        position: 1
      },
      { reviewer: "Tom Becker", recommends: false, text: "", postedAt: "2024-05-14T16:20:00.000Z", position: 2 }
    ])
    const u = unit("social_network", "reviews", { subjects: ["Meta"], limit: 30 }, "Meta")
    assert.deepStrictEqual(Mapping.input(mapping("social_network.reviews").input, u), { inputList: ["Meta"] })
  })

  it("social_network.reviews: a review without a reviewer name has an empty reviewer; without a verdict it is no row", () => {
    const m = mapping("social_network.reviews")
    const [row] = Mapping.rowsOf(m, { is_recommended: true, timestamp: 1715700000000, reviewer: { name: null } }, [])
    assert.deepStrictEqual(row, { reviewer: "", recommends: true, text: "", postedAt: "2024-05-14T15:20:00.000Z" })
    const [bad] = Mapping.rowsOf(m, { text: "x", published_at: "2024-05-14T15:20:00.000Z" }, [])
    assert.strictEqual(bad?.["recommends"] ?? null, null)
  })

  it("social_network.ads (easyapi~facebook-ads-scraper): the ad, its own status, start and platforms; the page URL as input", () => {
    const { rows } = mapped("social_network.ads")
    assert.deepStrictEqual(rows, [
      {
        adId: "1234567890123456",
        status: "active",
        startedAt: "2024-06-01T00:00:00.000Z",
        platforms: ["FACEBOOK", "INSTAGRAM"],
        body: "Up to 70% off summer styles. Shop now.",
        landingUrl: "https://www.shein.com/summer-sale",
        position: 1
      },
      {
        adId: "2234567890123457",
        status: "inactive",
        startedAt: "2024-03-10T00:00:00.000Z",
        platforms: ["FACEBOOK"],
        body: "",
        landingUrl: "https://www.shein.com/app",
        position: 2
      }
    ])
    const u = unit("social_network", "ads", { subjects: ["sheinofficial"], limit: 40 }, "sheinofficial")
    assert.deepStrictEqual(Mapping.input(mapping("social_network.ads").input, u), {
      sourceUrls: ["https://www.facebook.com/sheinofficial"],
      maxAdsPerUrl: 40,
      adStatus: "all"
    })
  })

  it("web_search.shopping (plumblinedata~google-shopping-scraper): product and grid items are offers, error items are not", () => {
    const { rows } = mapped("web_search.shopping")
    assert.deepStrictEqual(rows, [
      {
        title: "Google Pixel 9 128GB Obsidian",
        price: 799,
        currency: "USD",
        merchant: "Best Buy",
        rating: 4.6,
        url: "https://www.google.com/shopping/product/1234567890123456789",
        position: 1
      },
      {
        title: "Google Pixel 8a 128GB Bay",
        price: 499,
        currency: "USD",
        merchant: "",
        rating: null,
        url: "https://www.google.com/search?ibp=oshop&q=google+pixel&udm=28",
        position: 2
      }
    ])
    const u = unit("web_search", "shopping", { query: "google pixel", country: "DE", limit: 40 })
    assert.deepStrictEqual(Mapping.input(mapping("web_search.shopping").input, u), { queries: ["google pixel"] })
  })
})
