/**
 * Deterministic synthetic data: the same entity, request and day give the same rows; metrics drift plausibly from
 * day to day so that history series look real. Hosts are under `.example`: nothing here is measured data.
 */
import { Catalogue, Rows } from "@pdr/domain"

/** A seeded pseudo-random source (mulberry32 over an FNV-1a hash of the seed parts). */
export class Rng {
  private state: number
  constructor(...parts: ReadonlyArray<string | number>) {
    let h = 0x811c9dc5
    for (const ch of parts.join("|")) {
      h ^= ch.charCodeAt(0)
      h = Math.imul(h, 0x01000193)
    }
    this.state = h >>> 0
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  pick<A>(items: ReadonlyArray<A>): A {
    return items[Math.floor(this.next() * items.length)]!
  }
  id(length: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"): string {
    let out = ""
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)]
    return out
  }
}

/**
 * A metric of an entity on a day: a base drawn from the entity, a steady trend and a small daily wobble, so that
 * consecutive days differ a little and a series has a direction.
 */
export const drift = (
  entity: string,
  metric: string,
  day: number,
  base: number,
  trendPerDay: number,
  wobble: number
) => {
  const shape = new Rng(entity, metric, "shape")
  const start = base * (0.3 + shape.next() * 1.4)
  const trend = (shape.next() - 0.35) * trendPerDay
  const daily = new Rng(entity, metric, day).next() - 0.5
  return Math.max(0, start * (1 + trend * (day % 3650)) * (1 + daily * wobble))
}

const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits

const first = [
  "Asha",
  "Ben",
  "Chloe",
  "Dev",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jon",
  "Kavya",
  "Luca",
  "Maya",
  "Nils",
  "Omar",
  "Priya"
]
const last = [
  "Rao",
  "Silva",
  "Meyer",
  "Okafor",
  "Tanaka",
  "Kowalski",
  "Haddad",
  "Larsen",
  "Moreau",
  "Singh",
  "Baker",
  "Costa"
]
const words = [
  "fresh",
  "urban",
  "daily",
  "prime",
  "little",
  "golden",
  "north",
  "bright",
  "quiet",
  "wild",
  "blue",
  "kind",
  "rapid",
  "open"
]
const nouns = [
  "market",
  "studio",
  "kitchen",
  "garden",
  "house",
  "works",
  "corner",
  "lab",
  "club",
  "harbor",
  "collective",
  "table"
]
const brands = ["Amul", "Tata", "Nestle", "Britannia", "Haldiram", "Mother Dairy", "Parle", "Dabur", "ITC", "Fortune"]
const products = [
  "Toned Milk",
  "Brown Bread",
  "Basmati Rice",
  "Masala Chips",
  "Greek Yogurt",
  "Peanut Butter",
  "Green Tea",
  "Paneer",
  "Oats",
  "Dark Chocolate"
]
const designers = ["Acne Studios", "Ganni", "Jacquemus", "Nanushka", "Totême", "Sacai", "Marni", "Khaite"]
const garments = [
  "Wool Coat",
  "Silk Shirt",
  "Denim Jacket",
  "Leather Boots",
  "Knit Sweater",
  "Pleated Skirt",
  "Tote Bag"
]
const companies = [
  "Infosys",
  "Zoho",
  "Freshworks",
  "Razorpay",
  "Swiggy",
  "Siemens",
  "Accenture",
  "Shopify",
  "Atlassian",
  "Stripe"
]
const titles = [
  "Software Engineer",
  "Data Analyst",
  "Product Manager",
  "Sales Executive",
  "UX Designer",
  "DevOps Engineer",
  "Accountant"
]
const cities = [
  "Bengaluru",
  "Mumbai",
  "Pune",
  "Delhi",
  "London",
  "Berlin",
  "Toronto",
  "Sydney",
  "Paris",
  "Austin",
  "Lisbon"
]
const categories = ["Restaurant", "Cafe", "Bakery", "Pharmacy", "Gym", "Bookstore", "Hotel", "Museum", "Park", "Salon"]

/** A person's name. */
export const personName = (r: Rng) => `${r.pick(first)} ${r.pick(last)}`
/** A business-like name. */
export const placeName = (r: Rng) => `${cap(r.pick(words))} ${cap(r.pick(nouns))}`
/** Short text. */
export const sentence = (r: Rng, n = 8) =>
  `${cap(
    Array.from({ length: n }, () => r.pick([...words, ...nouns, "and", "the", "with", "really", "great", "not"])).join(
      " "
    )
  )}.`
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/(^-|-$)/g, "")
/** An ISO instant `daysAgo` days (and some hours) before `now`. */
export const ago = (r: Rng, now: number, maxDays: number) =>
  new Date(now - r.int(0, maxDays * 24) * 3_600_000).toISOString()

/** What a generator is given. */
export interface Ctx {
  /** The op of the catalogue the unit is of: the tables of generators are keyed by it. */
  readonly def: Catalogue.OpDef
  readonly platform: string
  readonly op: string
  readonly request: Readonly<Record<string, unknown>>
  readonly subject: string | undefined
  readonly store: string | undefined
  readonly day: number
  readonly now: number
}

/** A generated row and, when it measures an entity with history, its point. */
export interface Generated {
  readonly row: Record<string, unknown>
  readonly point?: { readonly subject: string; readonly metrics: Record<string, number> }
}

const hostOf: Record<string, string> = {
  quick_commerce_a: "qc-a.example",
  quick_commerce_b: "qc-b.example",
  short_video: "shortvideo.example",
  forum: "forum.example",
  maps: "maps.example",
  jobs_in: "jobs-in.example",
  jobs_global: "jobs-global.example",
  social_network: "social.example",
  web_search: "search.example",
  lodging_booking: "lodging.example",
  travel_reviews: "travel.example",
  home_rentals: "rentals.example",
  fashion_marketplace: "fashion.example",
  storefronts: "store.example",
  contacts: "pro.example"
}

/** The synthetic host of a platform. */
export const host = (platform: string) => `https://${hostOf[platform] ?? "source.example"}`

// Entity cards, keyed by the entity so the same subject has the same card (metrics drift by day).

const qcProduct = (c: Ctx, url: string, rank?: number): Generated => {
  const r = new Rng(url)
  const store = c.store ?? "store"
  const mrp = r.pick([20, 45, 60, 99, 120, 185, 240, 399, 550])
  const discount = round(drift(`${url}@${store}`, "discount", c.day, 12, 0, 1.2))
  const price = round(mrp * (1 - Math.min(discount, 60) / 100))
  const stock = Math.round(drift(`${url}@${store}`, "stock", c.day, 40, -0.002, 1.5))
  const rating = round(Math.min(5, 3 + drift(url, "rating", c.day, 1.2, 0.0005, 0.05)), 1)
  const ratingCount = Math.round(drift(url, "ratings", c.day, 2000, 0.004, 0.01))
  return {
    row: {
      subject: url,
      ...(rank === undefined ? {} : { rank }),
      name: `${r.pick(brands)} ${r.pick(products)}`,
      brand: r.pick(brands),
      packSize: r.pick(["200 g", "500 g", "1 kg", "500 ml", "1 l", "6 pcs"]),
      price,
      mrp,
      discountPct: round(((mrp - price) / mrp) * 100, 1),
      inStock: stock > 0,
      stockCount: stock,
      rating,
      ratingCount,
      store
    },
    point: {
      subject: url,
      metrics: {
        price,
        mrp,
        discount_pct: round(((mrp - price) / mrp) * 100, 1),
        stock_count: stock,
        rating,
        rating_count: ratingCount
      }
    }
  }
}

const svProfile = (c: Ctx, handle: string): Generated => {
  const r = new Rng(handle)
  const followers = Math.round(drift(handle, "followers", c.day, 250_000, 0.003, 0.01))
  const following = Math.round(drift(handle, "following", c.day, 600, 0.0005, 0.01))
  const totalLikes = Math.round(drift(handle, "likes", c.day, 4_000_000, 0.004, 0.01))
  const videos = Math.round(drift(handle, "videos", c.day, 300, 0.003, 0))
  return {
    row: {
      subject: handle,
      handle,
      name: personName(r),
      followers,
      following,
      totalLikes,
      videos,
      verified: r.next() < 0.3,
      bio: sentence(r, 10)
    },
    point: { subject: handle, metrics: { followers, following, total_likes: totalLikes, videos } }
  }
}

const forumPost = (c: Ctx, id: string, i: number, opts: { community?: string; withSubject?: boolean } = {}) => {
  const r = new Rng(id)
  const score = Math.round(drift(id, "score", c.day, 800, 0.01, 0.05))
  const comments = Math.round(drift(id, "comments", c.day, 120, 0.01, 0.05))
  const sub = opts.community ?? r.pick(["programming", "india", "cooking", "travel", "personalfinance", "science"])
  const kind = r.pick(["text", "link", "image", "video", "gallery", "poll"] as const)
  const row: Record<string, unknown> = {}
  if (opts.withSubject) row["subject"] = id
  row["position"] = i + 1
  row["postId"] = id
  row["title"] = sentence(r, 9)
  row["community"] = sub
  row["author"] = r.next() < 0.05 ? null : `${r.pick(words)}_${r.pick(nouns)}${r.int(1, 99)}`
  row["score"] = score
  row["upvoteRatio"] = round(0.6 + r.next() * 0.39, 2)
  row["commentsCount"] = comments
  row["kind"] = kind
  row["permalink"] = `${host("forum")}/r/${sub}/comments/${id}/${slug(sentence(r, 4))}`
  row["url"] = kind === "link" ? `https://${slug(placeName(r))}.example/${r.id(6)}` : null
  row["postedAt"] = ago(r, c.now, 30)
  return { row, point: { subject: id, metrics: { score, comments_count: comments } } } satisfies Generated
}

const place = (c: Ctx, placeId: string): Generated => {
  const r = new Rng(placeId)
  const rating = round(Math.min(5, 3 + drift(placeId, "rating", c.day, 1.3, 0.0003, 0.02)), 1)
  const reviews = Math.round(drift(placeId, "reviews", c.day, 900, 0.002, 0.005))
  const occupancy = Math.round(Math.min(100, drift(placeId, "occupancy", c.day, 45, 0, 0.8)))
  const city = r.pick(cities)
  return {
    row: {
      subject: placeId,
      placeId,
      name: placeName(r),
      address: `${r.int(1, 400)} ${cap(r.pick(words))} Street, ${city}`,
      lat: round(-60 + r.next() * 120, 6),
      lon: round(-170 + r.next() * 340, 6),
      rating,
      reviewCount: reviews,
      categories: [r.pick(categories), r.pick(categories)],
      phone: `+1-555-${String(r.int(0, 9999)).padStart(4, "0")}`,
      website: r.next() < 0.7 ? `https://${slug(placeName(r))}.example` : null,
      hours: {
        mon: "09:00-21:00",
        tue: "09:00-21:00",
        wed: "09:00-21:00",
        thu: "09:00-21:00",
        fri: "09:00-23:00",
        sat: "10:00-23:00",
        sun: r.next() < 0.3 ? "closed" : "10:00-18:00"
      },
      liveOccupancyPercent: occupancy
    },
    point: { subject: placeId, metrics: { rating, reviews, live_occupancy_percent: occupancy } }
  }
}

const snPage = (c: Ctx, page: string): Generated => {
  const r = new Rng(page)
  const followers = Math.round(drift(page, "followers", c.day, 120_000, 0.002, 0.005))
  const likes = Math.round(followers * (0.8 + r.next() * 0.2))
  const talking = Math.round(drift(page, "talking", c.day, 1500, 0, 0.3))
  const reviewCount = Math.round(drift(page, "reviews", c.day, 300, 0.002, 0.005))
  const recommend = Math.round(Math.min(100, 70 + drift(page, "recommend", c.day, 20, 0, 0.1)))
  return {
    row: {
      subject: page,
      name: placeName(r),
      category: r.pick(categories),
      followers,
      likes,
      talkingAbout: talking,
      reviewCount,
      recommendPercent: recommend,
      website: `https://${slug(placeName(r))}.example`,
      verified: r.next() < 0.2
    },
    point: {
      subject: page,
      metrics: { followers, likes, talking_about: talking, review_count: reviewCount, recommend_percent: recommend }
    }
  }
}

const stayOf = (c: Ctx) => c.request["stay"] as Record<string, unknown> | undefined
const nights = (stay: Record<string, unknown> | undefined) =>
  stay && typeof stay["checkIn"] === "string" && typeof stay["checkOut"] === "string"
    ? Math.max(1, Math.round((Date.parse(stay["checkOut"]) - Date.parse(stay["checkIn"])) / 86_400_000))
    : 0

const hotel = (c: Ctx, url: string): Generated => {
  const r = new Rng(url)
  const stay = stayOf(c)
  const priced = nights(stay) > 0
  const priceFrom = priced ? Math.round(drift(`${url}|${stay?.["checkIn"]}`, "price", c.day, 140, 0, 0.15)) : null
  const guestScore = round(Math.min(10, 6 + drift(url, "score", c.day, 2.5, 0.0002, 0.02)), 1)
  const reviewCount = Math.round(drift(url, "reviews", c.day, 1800, 0.002, 0.005))
  return {
    row: {
      subject: url,
      name: `${placeName(r)} Hotel`,
      url,
      stars: r.int(2, 5),
      guestScore,
      reviewCount,
      address: `${r.int(1, 200)} ${cap(r.pick(nouns))} Road, ${r.pick(cities)}`,
      priceFrom,
      currency: priced ? String(stay?.["currency"] ?? "USD") : null,
      nights: priced ? nights(stay) : null,
      available: priced ? r.next() < 0.9 : null
    },
    point: {
      subject: url,
      metrics: {
        guest_score: guestScore,
        review_count: reviewCount,
        ...(priceFrom === null ? {} : { price_from: priceFrom })
      }
    }
  }
}

const travelPlace = (c: Ctx, url: string, kind: string): Generated => {
  const r = new Rng(url)
  const rating = round(Math.min(5, 3 + drift(url, "rating", c.day, 1.4, 0.0002, 0.02)) * 2, 0) / 2
  const reviews = Math.round(drift(url, "reviews", c.day, 2500, 0.002, 0.004))
  const rank = Math.max(1, Math.round(drift(url, "rank", c.day, 40, -0.001, 0.1)))
  const stay = stayOf(c)
  const priced = kind === "hotels" && nights(stay) > 0
  return {
    row: {
      subject: url,
      kind: kind.replace(/s$/, ""),
      name: placeName(r),
      url,
      rating,
      reviews,
      rank,
      rankOf: rank + r.int(20, 400),
      city: r.pick(cities),
      priceLevel: r.pick(["$", "$$", "$$$", "$$$$"]),
      currency: String(c.request["currency"] ?? "USD"),
      language: String(c.request["language"] ?? "en"),
      ...(priced ? { priceFrom: Math.round(drift(`${url}|${stay?.["checkIn"]}`, "price", c.day, 160, 0, 0.15)) } : {})
    },
    point: { subject: url, metrics: { rating, reviews, rank } }
  }
}

const rental = (c: Ctx, id: string): Generated => {
  const r = new Rng(id)
  const stay = stayOf(c)
  const n = nights(stay)
  const perNight = n > 0 ? Math.round(drift(`${id}|${stay?.["checkIn"]}`, "price", c.day, 120, 0, 0.12)) : null
  const rating = round(Math.min(5, 4 + drift(id, "rating", c.day, 0.8, 0, 0.01)), 2)
  const reviews = Math.round(drift(id, "reviews", c.day, 150, 0.003, 0.004))
  return {
    row: {
      subject: id,
      roomId: /^\d+$/.test(id) ? id : null,
      title: `${cap(r.pick(words))} ${r.pick(["loft", "cottage", "apartment", "villa", "studio"])} in ${r.pick(cities)}`,
      url: /^\d+$/.test(id) ? `${host("home_rentals")}/rooms/${id}` : id,
      ratingOverall: rating,
      reviewsCount: reviews,
      bedrooms: r.int(1, 5),
      guests: r.int(2, 10),
      pricePerNight: perNight,
      totalPrice: perNight === null ? null : perNight * n + 45,
      currency: perNight === null ? null : String(stay?.["currency"] ?? "USD"),
      priced: perNight !== null
    },
    point: {
      subject: id,
      metrics: {
        rating_overall: rating,
        reviews_count: reviews,
        ...(perNight === null ? {} : { price_per_night: perNight, total_price: perNight * n + 45 })
      }
    }
  }
}

const fashionItem = (c: Ctx, item: string): Generated => {
  const r = new Rng(item)
  const fullPrice = r.pick([180, 240, 320, 450, 690, 980, 1250])
  const discount = Math.round(Math.min(70, drift(item, "discount", c.day, 15, 0.001, 0.6)))
  const price = Math.round(fullPrice * (1 - discount / 100))
  const stock = Math.round(drift(item, "stock", c.day, 25, -0.002, 0.5))
  return {
    row: {
      subject: item,
      itemId: /^\d+$/.test(item) ? item : null,
      name: `${r.pick(designers)} ${r.pick(garments)}`,
      designer: r.pick(designers),
      price,
      fullPrice,
      discountPercent: discount,
      currency: r.pick(["USD", "EUR", "GBP"]),
      stockQuantity: stock,
      sizes: ["XS", "S", "M", "L"].filter(() => r.next() < 0.7)
    },
    point: {
      subject: item,
      metrics: { price, full_price: fullPrice, discount_percent: discount, stock_quantity: stock }
    }
  }
}

/** The per-op generators: `card` for subject ops (the card of the subject), `list` rows for list ops. */
type Card = (c: Ctx, subject: string) => Generated
type ListRow = (c: Ctx, r: Rng, i: number) => Generated

const card: { readonly [K in Catalogue.OpPath]?: Card } = {
  "quick_commerce_a/products": (c, s) => qcProduct(c, s),
  "quick_commerce_b/products": (c, s) => qcProduct(c, s),
  "short_video/profiles": svProfile,
  "short_video/videos": (c, s) => {
    const r = new Rng(s)
    return {
      row: {
        subject: s,
        url: s,
        caption: sentence(r, 8),
        author: `${r.pick(words)}.${r.pick(nouns)}`,
        views: Math.round(drift(s, "views", c.day, 90_000, 0.01, 0.02)),
        likes: Math.round(drift(s, "likes", c.day, 7_000, 0.01, 0.02)),
        comments: Math.round(drift(s, "comments", c.day, 300, 0.01, 0.02)),
        shares: Math.round(drift(s, "shares", c.day, 200, 0.01, 0.02)),
        durationSec: r.int(7, 180),
        sound: `${sentence(r, 3)} - original sound`,
        postedAt: ago(r, c.now, 60)
      }
    }
  },
  "maps/places": place,
  "jobs_global/jobs": (c, s) => {
    const r = new Rng(s)
    return {
      row: {
        subject: s,
        jobKey: s,
        title: r.pick(titles),
        company: r.pick(companies),
        location: r.pick(cities),
        country: String(c.request["country"] ?? "US"),
        employmentType: r.pick(["full_time", "part_time", "contract"]),
        remote: r.next() < 0.3,
        salary: r.next() < 0.6 ? { min: r.int(40, 90) * 1000, max: r.int(91, 180) * 1000, period: "year" } : null,
        postedAt: ago(r, c.now, 20),
        description: sentence(r, 25)
      }
    }
  },
  "social_network/pages": snPage,
  "lodging_booking/properties": hotel,
  "travel_reviews/hotels": (c, s) => travelPlace(c, s, "hotels"),
  "travel_reviews/restaurants": (c, s) => travelPlace(c, s, "restaurants"),
  "travel_reviews/attractions": (c, s) => travelPlace(c, s, "attractions"),
  "home_rentals/listings": rental,
  "fashion_marketplace/products": fashionItem
}

const review = (c: Ctx, r: Rng, i: number, scale: number): Generated => ({
  row: {
    reviewId: r.id(12),
    position: i + 1,
    author: personName(r),
    rating: r.int(Math.max(1, scale - 4), scale),
    title: sentence(r, 4),
    text: sentence(r, 18),
    postedAt: ago(r, c.now, 365)
  }
})

const socialPost = (c: Ctx, r: Rng, i: number): Generated => ({
  row: {
    position: i + 1,
    permalink: `${host("social_network")}/${slug(c.subject ?? "page")}/posts/${r.id(15, "0123456789")}`,
    text: sentence(r, 16),
    postedAt: ago(r, c.now, 30),
    reactions: r.int(0, 20_000),
    comments: r.int(0, 900),
    shares: r.int(0, 400)
  }
})

const list: { [K in Catalogue.OpPath]?: ListRow } = {
  "quick_commerce_a/search": (c, r, i) =>
    qcProduct(c, `${host(c.platform)}/p/${slug(r.pick(products))}-${r.id(6, "0123456789")}`, i + 1),
  "quick_commerce_a/category": (c, r, i) =>
    qcProduct(c, `${host(c.platform)}/p/${slug(r.pick(products))}-${r.id(6, "0123456789")}`, i + 1),
  "short_video/posts": (c, r, i) => ({
    row: {
      position: i + 1,
      url: `${host("short_video")}/@${c.subject}/video/${r.id(19, "0123456789")}`,
      caption: sentence(r, 8),
      views: r.int(1000, 2_000_000),
      likes: r.int(10, 200_000),
      comments: r.int(0, 5000),
      shares: r.int(0, 3000),
      durationSec: r.int(7, 180),
      postedAt: ago(r, c.now, 60)
    }
  }),
  "short_video/searchPosts": (c, r, i) => ({
    row: {
      position: i + 1,
      url: `${host("short_video")}/@${r.pick(words)}.${r.pick(nouns)}/video/${r.id(19, "0123456789")}`,
      caption: `${sentence(r, 6)} #${c.request["hashtag"] ?? r.pick(words)}`,
      views: r.int(1000, 2_000_000),
      likes: r.int(10, 200_000),
      postedAt: ago(r, c.now, 30)
    }
  }),
  "short_video/search": (c, r) => svProfile(c, `${r.pick(words)}.${r.pick(nouns)}${r.int(1, 999)}`),
  "short_video/comments": (c, r, i) => ({
    row: {
      position: i + 1,
      commentId: r.id(19, "0123456789"),
      author: `${r.pick(words)}_${r.int(1, 999)}`,
      text: sentence(r, 10),
      likes: r.int(0, 5000),
      replies: r.int(0, 40),
      postedAt: ago(r, c.now, 10)
    }
  }),
  "short_video/followers": (_c, r, i) => ({
    row: {
      position: i + 1,
      handle: `${r.pick(words)}.${r.pick(nouns)}${r.int(1, 999)}`,
      name: personName(r),
      followers: r.int(0, 50_000),
      verified: r.next() < 0.05
    }
  }),
  "short_video/shop": (_c, r, i) => ({
    row: {
      position: i + 1,
      productId: r.id(18, "0123456789"),
      title: `${r.pick(brands)} ${r.pick(products)}`,
      price: round(5 + r.next() * 60, 2),
      currency: "USD",
      sold: r.int(0, 90_000),
      rating: round(3.5 + r.next() * 1.5, 1),
      shop: placeName(r)
    }
  }),
  "forum/posts": (c, r, i) => forumPost(c, r.id(7), i),
  "forum/subreddit": (c, r, i) => forumPost(c, r.id(7), i, c.subject === undefined ? {} : { community: c.subject }),
  "forum/search": (c, r, i) => forumPost(c, r.id(7), i, { withSubject: true }),
  "forum/comments": (c, r, i) => {
    const postId = c.subject ?? "post"
    const commentId = r.id(7)
    const depth = i === 0 ? 0 : r.int(0, 4)
    return {
      row: {
        position: i + 1,
        commentId,
        postId,
        parentId: depth === 0 ? null : r.id(7),
        author: r.next() < 0.05 ? null : `${r.pick(words)}_${r.pick(nouns)}`,
        body: sentence(r, 14),
        score: r.int(-5, 900),
        depth,
        postedAt: ago(r, c.now, 5),
        permalink: `${host("forum")}/r/${r.pick(words)}/comments/${postId}/_/${commentId}`
      }
    }
  },
  "maps/search": (c, r) =>
    place(c, `ChIJ${r.id(23, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")}`),
  "maps/reviews": (c, r, i) => review(c, r, i, 5),
  "jobs_in/search": (c, r, i) => {
    const jobId = r.id(12, "0123456789").replace(/^0/, "1")
    const applicants = Math.round(drift(jobId, "applicants", c.day, 120, 0.03, 0.05))
    const views = Math.round(drift(jobId, "views", c.day, 1500, 0.03, 0.05))
    const vacancies = Math.max(1, Math.round(drift(jobId, "vacancies", c.day, 3, 0, 0)))
    return {
      row: {
        subject: jobId,
        position: i + 1,
        jobId,
        title: r.pick(titles),
        company: r.pick(companies),
        location: r.pick(cities.slice(0, 4)),
        experience: `${r.int(0, 5)}-${r.int(6, 12)} years`,
        salaryLakhs: r.next() < 0.5 ? { min: r.int(3, 15), max: r.int(16, 40) } : null,
        applicants,
        views,
        vacancies,
        url: `${host("jobs_in")}/job-listings-${slug(r.pick(titles))}-${jobId}`,
        postedAt: ago(r, c.now, 30),
        ...(c.request["fetchDetails"] === false ? {} : { details: sentence(r, 30) })
      },
      point: { subject: jobId, metrics: { applicants, views, vacancies } }
    }
  },
  "jobs_global/search": (c, r, i) => ({
    row: {
      position: i + 1,
      jobKey: r.id(16, "0123456789abcdef"),
      title: r.pick(titles),
      company: r.pick(companies),
      location: String(c.request["location"] ?? r.pick(cities)),
      country: String(c.request["country"] ?? "US"),
      employmentType: r.pick(["full_time", "part_time", "contract", "internship"]),
      remote: r.next() < 0.3,
      postedAt: ago(r, c.now, 30)
    }
  }),
  "social_network/posts": socialPost,
  "social_network/reels": (c, r, i) => ({
    row: {
      position: i + 1,
      permalink: `${host("social_network")}/reel/${r.id(16, "0123456789")}`,
      caption: sentence(r, 8),
      plays: r.int(100, 900_000),
      reactions: r.int(0, 40_000),
      comments: r.int(0, 900),
      postedAt: ago(r, c.now, 30)
    }
  }),
  "social_network/reviews": (c, r, i) => ({
    row: {
      position: i + 1,
      reviewer: personName(r),
      recommends: r.next() < 0.85,
      text: sentence(r, 15),
      postedAt: ago(r, c.now, 400)
    }
  }),
  "social_network/followers": (_c, r, i) => ({
    row: { position: i + 1, name: personName(r), profileUrl: `${host("social_network")}/${r.id(10)}` }
  }),
  "social_network/ads": (c, r, i) => ({
    row: {
      position: i + 1,
      adId: r.id(15, "0123456789"),
      status: String(c.request["status"] ?? "active"),
      startedAt: ago(r, c.now, 90),
      platforms: ["feed", "stories"].filter(() => r.next() < 0.8),
      body: sentence(r, 12),
      landingUrl: `https://${slug(placeName(r))}.example/offer`
    }
  }),
  "social_network/events": (c, r, i) => ({
    row: {
      position: i + 1,
      eventId: r.id(15, "0123456789"),
      name: `${placeName(r)} ${r.pick(["Meetup", "Festival", "Market", "Workshop"])}`,
      startsAt: new Date(c.now + r.int(1, 60) * 86_400_000).toISOString(),
      location: r.pick(cities),
      going: r.int(0, 3000),
      interested: r.int(0, 12_000)
    }
  }),
  "social_network/marketplace": (c, r, i) => ({
    row: {
      position: i + 1,
      listingId: r.id(15, "0123456789"),
      title: `${r.pick(words)} ${r.pick(garments)}`,
      price: r.int(5, 900),
      currency: "USD",
      location: r.pick(cities),
      postedAt: ago(r, c.now, 14)
    }
  }),
  "social_network/comments": (c, r, i) => ({
    row: {
      position: i + 1,
      commentId: r.id(15, "0123456789"),
      author: personName(r),
      text: sentence(r, 12),
      reactions: r.int(0, 3000),
      postedAt: ago(r, c.now, 7),
      ...(c.request["includeReplies"] === false ? {} : { replies: r.int(0, 12) })
    }
  }),
  "web_search/search": (c, r, i) => ({
    row: {
      page: Math.floor(i / 10) + 1,
      position: (i % 10) + 1,
      title: sentence(r, 6),
      url: `https://${slug(placeName(r))}.example/${slug(String(c.request["query"]))}`,
      snippet: sentence(r, 20)
    }
  }),
  "web_search/news": (c, r, i) => ({
    row: {
      position: i + 1,
      title: sentence(r, 9),
      url: `https://news-${r.int(1, 40)}.example/${r.id(10)}`,
      publisher: `${cap(r.pick(words))} Times`,
      publishedAt: ago(r, c.now, 7),
      snippet: sentence(r, 20)
    }
  }),
  "web_search/images": (_c, r, i) => ({
    row: {
      position: i + 1,
      title: sentence(r, 5),
      imageUrl: `https://img.example/${r.id(16)}.jpg`,
      pageUrl: `https://${slug(placeName(r))}.example/`,
      width: r.pick([640, 800, 1200, 1920]),
      height: r.pick([480, 600, 800, 1080])
    }
  }),
  "web_search/shopping": (c, r, i) => ({
    row: {
      position: i + 1,
      title: `${r.pick(brands)} ${r.pick(products)}`,
      price: round(3 + r.next() * 200, 2),
      currency: c.request["country"] === "US" ? "USD" : "EUR",
      merchant: placeName(r),
      rating: round(3 + r.next() * 2, 1),
      url: `https://${slug(placeName(r))}.example/p/${r.id(8)}`
    }
  }),
  "web_search/playReviews": (c, r, i) => ({
    row: {
      position: i + 1,
      reviewId: r.id(20),
      author: personName(r),
      rating: r.int(1, 5),
      text: sentence(r, 15),
      thumbsUp: r.int(0, 400),
      appVersion: `${r.int(1, 9)}.${r.int(0, 30)}.${r.int(0, 9)}`,
      postedAt: ago(r, c.now, 90)
    }
  }),
  "lodging_booking/search": (c, r) =>
    hotel(
      c,
      `${host("lodging_booking")}/hotel/${slug(String(c.request["location"]))}/${slug(placeName(r))}-${r.int(1, 999)}`
    ),
  "lodging_booking/reviews": (c, r, i) => {
    const score = r.int(4, 10)
    return {
      row: {
        ...review(c, r, i, 10).row,
        rating: score,
        band: score >= 9 ? "superb" : score >= 7 ? "good" : score >= 5 ? "average" : "poor",
        travellerType: r.pick(["couple", "family", "solo", "business"])
      }
    }
  },
  "travel_reviews/searchHotels": (c, r) =>
    travelPlace(c, `${host("travel_reviews")}/Hotel_Review-${slug(placeName(r))}-${r.int(1000, 99999)}`, "hotels"),
  "travel_reviews/searchRestaurants": (c, r) =>
    travelPlace(
      c,
      `${host("travel_reviews")}/Restaurant_Review-${slug(placeName(r))}-${r.int(1000, 99999)}`,
      "restaurants"
    ),
  "travel_reviews/searchAttractions": (c, r) =>
    travelPlace(
      c,
      `${host("travel_reviews")}/Attraction_Review-${slug(placeName(r))}-${r.int(1000, 99999)}`,
      "attractions"
    ),
  "travel_reviews/reviews": (c, r, i) => ({
    row: { ...review(c, r, i, 5).row, language: r.pick(["en", "de", "fr", "es"]) }
  }),
  "home_rentals/reviews": (c, r, i) => ({
    row: { ...review(c, r, i, 5).row, locale: String(c.request["locale"] ?? "en-US") }
  }),
  "fashion_marketplace/listing": (c, r) => fashionItem(c, r.id(8, "0123456789").replace(/^0/, "1")),
  "fashion_marketplace/search": (c, r) => fashionItem(c, r.id(8, "0123456789").replace(/^0/, "1")),
  "storefronts/products": (c, r, i) => {
    const origin = c.subject ?? host("storefronts")
    const title = `${cap(r.pick(words))} ${r.pick(garments)}`
    const handle = `${slug(title)}-${r.id(4)}`
    const base = round(5 + r.next() * 80, 2)
    const variants = Array.from({ length: r.int(1, 6) }, (_, v) => {
      const price = round(base * (1 + v * 0.15), 2)
      return {
        variantId: r.id(14, "0123456789"),
        title: r.pick(["XS", "S", "M", "L", "XL", "Default Title"]),
        price,
        compareAtPrice: r.next() < 0.3 ? round(price * 1.25, 2) : null,
        available: r.next() < 0.8,
        sku: r.next() < 0.7 ? r.id(8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") : null
      }
    })
    const prices = variants.map((v) => v.price)
    const compareAt = variants.flatMap((v) => (v.compareAtPrice === null ? [] : [v.compareAtPrice]))
    return {
      row: {
        position: i + 1,
        productId: r.id(13, "0123456789"),
        title,
        handle,
        vendor: r.next() < 0.9 ? placeName(r) : null,
        productType: r.next() < 0.8 ? r.pick(["Apparel", "Shoes", "Accessories"]) : null,
        url: `${origin}/products/${handle}`,
        priceFrom: Math.min(...prices),
        priceTo: Math.max(...prices),
        compareAtPrice: compareAt.length > 0 ? Math.max(...compareAt) : null,
        currency: null,
        inStock: variants.some((v) => v.available),
        variantCount: variants.length,
        variants,
        images: [`${origin}/cdn/shop/files/${handle}.jpg`],
        updatedAt: ago(r, c.now, 60)
      }
    }
  },
  "explore/run": (c, r, i) => ({
    row: {
      position: i + 1,
      raw: { title: sentence(r, 5), value: r.int(0, 10_000), url: `https://${slug(placeName(r))}.example/${r.id(6)}` },
      input: c.request["input"] ?? {}
    }
  })
}
list["quick_commerce_b/search"] = list["quick_commerce_a/search"]!
list["quick_commerce_b/category"] = list["quick_commerce_a/category"]!

/** Whether the synthetic upstream can serve this op: it has a generator for it, or reveals its contact parts. */
export const serves = (op: Catalogue.OpDef) => {
  const path = Catalogue.pathOf(op)
  return (path !== undefined && (card[path] !== undefined || list[path] !== undefined)) || op.kind._tag === "Reveal"
}

/** The card of one subject (subject ops priced per subject). */
export const cardFor = (c: Ctx): Generated | undefined => {
  const path = Catalogue.pathOf(c.def)
  return path === undefined ? undefined : card[path]?.(c, c.subject ?? "")
}

/** How many rows exist for a list unit (so a small result is exhaustive). */
export const available = (_c: Ctx, key: string) => {
  const r = new Rng(key, "available")
  return r.next() < 0.15 ? r.int(0, 12) : r.int(40, 400)
}

/** The rows of a list unit. */
export const listFor = (c: Ctx, key: string, count: number): ReadonlyArray<Generated> => {
  const path = Catalogue.pathOf(c.def)
  const gen = path === undefined ? undefined : list[path]
  if (!gen) return []
  return Array.from({ length: count }, (_, i) => gen(c, new Rng(key, i), i))
}

/** A point for the subject of a list op that measures an entity (storefront totals, forum post comments). */
export const subjectPoint = (c: Ctx, rows: ReadonlyArray<Generated>): Generated["point"] | undefined => {
  const path = Catalogue.pathOf(c.def)
  return c.subject === undefined || path === undefined ? undefined : subjectPoints[path]?.(c, c.subject, rows)
}

/** The list ops whose subject is an entity with its own history point. */
const subjectPoints: {
  readonly [K in Catalogue.OpPath]?: (c: Ctx, subject: string, rows: ReadonlyArray<Generated>) => Generated["point"]
} = {
  // a store's point aggregates its rows as the catalogue says (D9)
  "storefronts/products": (c, subject, rows) => {
    const sources = Catalogue.historyOp(c.platform)?.metricSources ?? {}
    const metrics: Record<string, number> = {}
    for (const [metric, source] of Object.entries(sources)) {
      const value = Rows.measure(
        source,
        rows.map((g) => g.row)
      )
      if (value !== undefined) metrics[metric] = value
    }
    return { subject, metrics }
  },
  "forum/comments": (c, subject) => forumPost(c, subject, 0).point
}

/** Contact parts of a person: deterministic whether each part is on file. */
export const contact = (person: string, parts: ReadonlyArray<"email" | "phone">) => {
  const r = new Rng(person, "contact")
  const [firstName, lastName] = personName(r).toLowerCase().split(" ") as [string, string]
  const row: Record<string, string | null> = {}
  for (const part of parts) {
    const onFile = new Rng(person, part).next() < 0.75
    row[part] = !onFile
      ? null
      : part === "email"
        ? `${firstName}.${lastName}@${slug(r.pick(companies))}.example`
        : `+1-555-${String(r.int(100, 999))}-${String(r.int(0, 9999)).padStart(4, "0")}`
  }
  return row
}
