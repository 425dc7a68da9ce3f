/**
 * Local servers on loopback that answer in the public formats with recorded-shape data (test/fixtures/*.json): a
 * storefront host (`/<store>/products.json`), the forum's token and OAuth hosts, and the provider's run API. Each
 * counts the requests it gets. Store, community and actor names choose a behaviour, for tests and `pnpm fixtures`:
 * `missing` 404, `private` 403, `empty` nothing, `html` a web page, `malformed` broken JSON, `wrongshape` JSON of
 * another shape, `ratelimited` one 429 with Retry-After, `flaky` one 500, `hang` no answer, `down` always 503.
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Either } from "effect"
import * as Mapping from "../../src/Mapping.js"

const recorded = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}.json`, import.meta.url), "utf8"))

/** The provider fixture's recorded item (test/fixtures/provider-item.json). */
export const recordedItem = () => recorded("provider-item")

/** The fixture credentials. */
export const credentials = {
  clientId: "fixture-client",
  clientSecret: "fixture-secret",
  providerToken: "fixture-token"
}

/** One fixture server. */
export interface Fixture {
  readonly url: string
  /** Requests received, by path (without query). */
  readonly hits: Map<string, number>
  readonly total: () => number
  readonly close: () => Promise<void>
}

type Handler = (req: IncomingMessage, url: URL, body: string, res: ServerResponse, hit: number) => void

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
  res.end(JSON.stringify(body))
}

/** The shared behaviours of a name; true when it answered. */
const behave = (name: string, hit: number, res: ServerResponse): boolean => {
  switch (name) {
    case "missing":
      json(res, 404, { errors: "Not Found" })
      return true
    case "private":
      json(res, 403, { reason: "private", message: "Forbidden" })
      return true
    case "html":
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end("<!doctype html><html><body>Welcome to our shop</body></html>")
      return true
    case "malformed":
      res.writeHead(200, { "content-type": "application/json" })
      res.end('{"products": [{"id": 1, "title": "half')
      return true
    case "ratelimited":
      if (hit > 1) return false
      json(res, 429, { message: "Too Many Requests" }, { "retry-after": "1" })
      return true
    case "flaky":
      if (hit > 1) return false
      json(res, 500, { message: "Internal Server Error" })
      return true
    case "hang":
      return true
    case "down":
      json(res, 503, { message: "Service Unavailable" })
      return true
    default:
      return false
  }
}

const serve = (handler: Handler, port = 0): Promise<Fixture> =>
  new Promise((resolve) => {
    const hits = new Map<string, number>()
    let total = 0
    const hanging = new Set<ServerResponse>()
    const server: Server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://fixture")
        const hit = (hits.get(url.pathname) ?? 0) + 1
        hits.set(url.pathname, hit)
        total++
        hanging.add(res)
        res.on("close", () => hanging.delete(res))
        handler(req, url, Buffer.concat(chunks).toString("utf8"), res, hit)
      })
    })
    server.keepAliveTimeout = 60_000
    server.listen(port, "127.0.0.1", () => {
      const address = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${address.port}`,
        hits,
        total: () => total,
        close: () =>
          new Promise<void>((done) => {
            for (const r of hanging) r.destroy()
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** A store's products: `count` products shaped like the recorded one, varied by store and position. */
export const products = (store: string, count: number) => {
  const key = `${store.length}:${count}`
  const known = productCache.get(key)
  if (known !== undefined) return known
  const made = makeProducts(store, count)
  productCache.set(key, made)
  return made
}

// products depend on the store only through its name's length: a few lists serve every store
const productCache = new Map<string, ReturnType<typeof makeProducts>>()

const makeProducts = (store: string, count: number) => {
  const template = recorded("storefront-product") as { variants: Array<Record<string, unknown>> } & Record<
    string,
    unknown
  >
  return Array.from({ length: count }, (_, i) => {
    const n = i + 1
    const base = 20 + ((store.length * 7 + n * 13) % 80)
    return {
      ...template,
      id: 7981234560000 + n,
      title: `${String(template["title"])} ${n}`,
      handle: `${String(template["handle"])}-${n}`,
      variants: template.variants.map((v, j) => ({
        ...v,
        id: 43981234560000 + n * 10 + j,
        price: (base + j * 3).toFixed(2),
        compare_at_price: j === 0 && n % 2 === 0 ? (base + 20).toFixed(2) : null,
        available: n % 3 !== 0 || j === 0
      }))
    }
  })
}

/** Products per fixture store (a number in the name sets it: `shop-7` has 7). */
const storeSize = (store: string) => {
  const m = /-(\d+)$/.exec(store)
  return m ? Number(m[1]) : 60
}

/** The storefront host: `/<store>/products.json?limit=&page=` (limit capped at 250 as the public format does). */
export const storefront = (port?: number) =>
  serve((_req, url, _body, res, hit) => {
    const m = /^\/([^/]+)\/products\.json$/.exec(url.pathname)
    if (!m) return json(res, 404, { errors: "Not Found" })
    const store = m[1]!
    if (behave(store, hit, res)) return
    if (store === "empty") return json(res, 200, { products: [] })
    if (store === "wrongshape") return json(res, 200, { products: [{ id: 1, title: 7 }] })
    const limit = Math.min(250, Math.max(1, Number(url.searchParams.get("limit") ?? 30)))
    const page = Math.max(1, Number(url.searchParams.get("page") ?? 1))
    const all = products(store, storeSize(store))
    // `loop-N`: a store that ignores `page` (every page is the first); `again-N`: past its last page, the last again
    if (store.startsWith("loop")) return json(res, 200, { products: all.slice(0, limit) })
    const last = Math.max(1, Math.ceil(all.length / limit))
    const served = store.startsWith("again") ? Math.min(page, last) : page
    json(res, 200, { products: all.slice((served - 1) * limit, served * limit) })
  }, port)

const userAgentForm = /^[^:\s]+:[^:\s]+:[^\s]+ \(by \/u\/[^)\s]+\)$/

/** Forum posts of a listing, shaped like the recorded one. */
export const posts = (listing: string, count: number) => {
  const template = recorded("forum-post")
  const kinds = [
    { is_self: true, post_hint: "self", url: "https://www.reddit.com/r/x" },
    { is_self: false, post_hint: "link" },
    { is_self: false, post_hint: "image", url: "https://i.example/a.jpg" },
    { is_self: false, is_video: true, post_hint: "hosted:video" },
    { is_self: false, is_gallery: true },
    { is_self: true, poll_data: { total_vote_count: 10 } }
  ]
  return Array.from({ length: count }, (_, i) => {
    const id = `${listing.replace(/[^a-z0-9]/g, "").slice(0, 4)}${(i + 1).toString(36).padStart(3, "0")}`
    return {
      ...template,
      ...kinds[i % kinds.length],
      id,
      name: `t3_${id}`,
      title: `${String(template["title"])} #${i + 1}`,
      subreddit: listing.startsWith("r:") ? listing.slice(2) : String(template["subreddit"]),
      author: i === 4 ? "[deleted]" : String(template["author"]),
      score: 1000 - i * 7,
      num_comments: 200 - i,
      permalink: `/r/programming/comments/${id}/post_${i + 1}/`
    }
  })
}

const listing = (children: ReadonlyArray<Record<string, unknown>>, kind: string, after: string | null) => ({
  kind: "Listing",
  data: { after, dist: children.length, children: children.map((data) => ({ kind, data })) }
})

/** Comments of a post: 5 top-level comments with 2 replies each, then a `more` stub of 40 ids at the top level. */
const commentTree = (postId: string) => {
  const template = recorded("forum-comment")
  const comment = (id: string, parent: string, depth: number, replies: unknown) => ({
    ...template,
    id,
    parent_id: parent,
    link_id: `t3_${postId}`,
    depth,
    body: `${String(template["body"])} (${id})`,
    permalink: `/r/programming/comments/${postId}/post/${id}/`,
    replies
  })
  const top = Array.from({ length: 5 }, (_, i) => {
    const id = `c${i}`
    const replies = [0, 1].map((j) => ({ kind: "t1", data: comment(`c${i}r${j}`, `t1_${id}`, 1, "") }))
    return {
      kind: "t1",
      data: comment(id, `t3_${postId}`, 0, { kind: "Listing", data: { after: null, children: replies } })
    }
  })
  const moreIds = Array.from({ length: 40 }, (_, i) => `m${i}`)
  return {
    children: [
      ...top,
      {
        kind: "more",
        data: { count: 40, name: "t1_more", id: "more", parent_id: `t3_${postId}`, depth: 0, children: moreIds }
      }
    ],
    more: (ids: ReadonlyArray<string>) => ids.map((id) => ({ kind: "t1", data: comment(id, `t3_${postId}`, 0, "") }))
  }
}

/**
 * A deep post's comments (post ids starting `deep`): 3 top-level threads 13 comments deep (depths 0 to 12) and a
 * top-level `more` stub of 6 comments. Rendered as the forum does: `depth` levels (2 when not sent, at most 10), a
 * "continue this thread" stub (count 0, no children) below the last level, `comment=<id>` a thread from that comment
 * (its depth 0 there).
 */
const deepTree = (postId: string) => {
  const template = recorded("forum-comment")
  const children = new Map<string, Array<string>>()
  const parentOf = new Map<string, string>()
  const tops: Array<string> = []
  for (let t = 0; t < 3; t++) {
    let parent = ""
    for (let d = 0; d <= 12; d++) {
      const id = `t${t}d${d}`
      if (parent === "") tops.push(id)
      else {
        children.set(parent, [...(children.get(parent) ?? []), id])
        parentOf.set(id, parent)
      }
      parent = id
    }
  }
  const moreIds = Array.from({ length: 6 }, (_, i) => `dm${i}`)
  const data = (id: string, rel: number, replies: unknown) => ({
    ...template,
    id,
    name: `t1_${id}`,
    parent_id: parentOf.has(id) ? `t1_${parentOf.get(id)}` : `t3_${postId}`,
    link_id: `t3_${postId}`,
    depth: rel,
    body: `${String(template["body"])} (${id})`,
    permalink: `/r/programming/comments/${postId}/post/${id}/`,
    replies
  })
  const render = (id: string, rel: number, depth: number): Record<string, unknown> => {
    const kids = children.get(id) ?? []
    const replies =
      kids.length === 0
        ? ""
        : rel + 1 < depth
          ? { kind: "Listing", data: { after: null, children: kids.map((k) => render(k, rel + 1, depth)) } }
          : {
              kind: "Listing",
              data: {
                after: null,
                children: [
                  {
                    kind: "more",
                    data: { count: 0, name: "t1__", id: "_", parent_id: `t1_${id}`, depth: rel + 1, children: [] }
                  }
                ]
              }
            }
    return { kind: "t1", data: data(id, rel, replies) }
  }
  return {
    tree: (depth: number, focus: string | null) =>
      focus !== null
        ? [render(focus, 0, depth)]
        : [
            ...tops.map((t) => render(t, 0, depth)),
            {
              kind: "more",
              data: { count: 6, name: "t1_dmore", id: "dmore", parent_id: `t3_${postId}`, depth: 0, children: moreIds }
            }
          ],
    more: (ids: ReadonlyArray<string>) => ids.map((id) => ({ kind: "t1", data: data(id, 0, "") }))
  }
}

/** The forum: `/api/v1/access_token` (client credentials) and the OAuth host's listings, both on this server. */
export const forum = (options: { readonly tokenSeconds?: number; readonly remaining?: number } = {}, port?: number) => {
  let issued = 0
  let remaining = options.remaining ?? 600
  const tokens = new Set<string>()
  const fixture = serve((req, url, body, res, hit) => {
    const ua = req.headers["user-agent"] ?? ""
    if (url.pathname === "/api/v1/access_token") {
      const basic = Buffer.from(String(req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString()
      if (req.method !== "POST" || basic !== `${credentials.clientId}:${credentials.clientSecret}`)
        return json(res, 401, { message: "Unauthorized", error: 401 })
      if (new URLSearchParams(body).get("grant_type") !== "client_credentials")
        return json(res, 400, { error: "unsupported_grant_type" })
      const token = `fixture-token-${++issued}`
      tokens.add(token)
      return json(res, 200, {
        access_token: token,
        token_type: "bearer",
        expires_in: options.tokenSeconds ?? 86400,
        scope: "*"
      })
    }
    if (!userAgentForm.test(ua)) return json(res, 403, { message: "Blocked", error: 403 })
    const bearer = String(req.headers.authorization ?? "").replace(/^bearer /i, "")
    if (!tokens.has(bearer)) return json(res, 401, { message: "Unauthorized", error: 401 })
    if (url.searchParams.get("raw_json") !== "1") return json(res, 400, { message: "raw_json=1 expected" })
    remaining = Math.max(0, remaining - 1)
    const limits = {
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-used": String(600 - remaining),
      "x-ratelimit-reset": "1"
    }
    const page = (name: string, all: ReadonlyArray<Record<string, unknown>>) => {
      // a listing named `paged` answers at most 20 a page, so the adapter has to follow `after`
      const limit = Math.min(name === "paged" ? 20 : 100, Number(url.searchParams.get("limit") ?? 25))
      const after = url.searchParams.get("after")
      const start = after === null ? 0 : all.findIndex((p) => `t3_${String(p["id"])}` === after) + 1
      const slice = all.slice(start, start + limit)
      const next = start + limit < all.length ? `t3_${String(slice[slice.length - 1]?.["id"])}` : null
      if (name === "") return json(res, 200, listing([], "t3", null), limits)
      json(res, 200, listing(slice, "t3", next), limits)
    }
    // an unknown community or user (`gone`) is redirected to a search page, as the forum does
    if (/^\/(r|user)\/gone(\/|$)/.test(url.pathname)) {
      res.writeHead(302, { location: "/subreddits/search.json?q=gone" })
      return res.end()
    }
    if (url.pathname === "/subreddits/search.json") return json(res, 200, listing([], "t5", null), limits)
    let m = /^\/r\/([^/]+)\/(hot|new|top|rising)$/.exec(url.pathname)
    if (m) {
      if (behave(m[1]!, hit, res)) return
      return page(m[1] === "empty" ? "" : m[1]!, posts(`r:${m[1]}`, 250))
    }
    m = /^\/user\/([^/]+)\/submitted$/.exec(url.pathname)
    if (m) {
      if (behave(m[1]!, hit, res)) return
      return page(m[1] === "empty" ? "" : m[1]!, posts(`u${m[1]}`, 30))
    }
    if (url.pathname === "/search") {
      const q = url.searchParams.get("q") ?? ""
      if (behave(q, hit, res)) return
      return page(q === "nothing" ? "" : q, posts(`s${q}`, 120))
    }
    m = /^\/comments\/([a-z0-9]+)$/.exec(url.pathname)
    if (m) {
      const id = m[1]!
      if (behave(id === "missing" ? "missing" : "", hit, res)) return
      const post = { ...posts(id, 1)[0], id, name: `t3_${id}` }
      if (id.startsWith("deep")) {
        const depth = Math.min(10, Number(url.searchParams.get("depth") ?? 2))
        const focus = url.searchParams.get("comment")
        // `deepfail`: a thread cannot be continued (the forum fails that request)
        if (focus !== null && id === "deepfail") return json(res, 500, { message: "Internal Server Error" })
        return json(
          res,
          200,
          [
            listing([post], "t3", null),
            { kind: "Listing", data: { after: null, children: deepTree(id).tree(depth, focus) } }
          ],
          limits
        )
      }
      return json(
        res,
        200,
        [listing([post], "t3", null), { kind: "Listing", data: { after: null, children: commentTree(id).children } }],
        limits
      )
    }
    if (url.pathname === "/api/morechildren") {
      const link = (url.searchParams.get("link_id") ?? "").replace(/^t3_/, "")
      const ids = (url.searchParams.get("children") ?? "").split(",").filter((s) => s !== "")
      if (ids.length > 100) return json(res, 400, { message: "at most 100 children" })
      const things = link.startsWith("deep") ? deepTree(link).more(ids) : commentTree(link).more(ids)
      return json(res, 200, { json: { errors: [], data: { things } } }, limits)
    }
    json(res, 404, { message: "Not Found", error: 404 })
  }, port)
  /** `revoke`: every token issued so far is refused from now on (401), as after a revocation. */
  return fixture.then((f) => ({ ...f, revoke: () => tokens.clear() }))
}

/** The provider's actor-run API: runs finish after one poll; the dataset holds items shaped like the recorded one. */
/**
 * `items`: items per run (40; capped by maxItems); `datasets`: an actor's recorded items (served as they are, cycled
 * up to the run's count); actors named `~capped` stop on their charge limit after half of maxItems (usageTotalUsd at
 * the limit, a status message saying so); `~notes` answer one note item and no data.
 */
export const provider = (
  options: {
    readonly items?: number
    readonly datasets?: Readonly<Record<string, ReadonlyArray<unknown>>>
    /** Actors that stop on their charge limit (as `~capped` names do). */
    readonly capped?: ReadonlyArray<string>
    /** Every run takes this long from its start (each wait held at most 1 s, answered RUNNING meanwhile). */
    readonly runSeconds?: number
  } = {},
  port?: number
) => {
  const runs = new Map<
    string,
    { actor: string; maxItems: number; charge: number; polls: number; input: unknown; at: number }
  >()
  const started: Array<{ actor: string; maxItems: number; charge: number; input: unknown }> = []
  const aborted: Array<string> = []
  let next = 0
  const fixture = serve((req, url, body, res, hit) => {
    if (req.headers.authorization !== `Bearer ${credentials.providerToken}`)
      return json(res, 401, { error: { type: "token-not-valid", message: "Authentication token is not valid." } })
    if (/run-sync/.test(url.pathname)) {
      res.writeHead(408, { "content-type": "application/json" })
      return res.end(JSON.stringify({ error: { type: "run-timeout-exceeded" } }))
    }
    let m = /^\/v2\/acts\/([^/]+)\/runs$/.exec(url.pathname)
    if (m && req.method === "POST") {
      const actor = decodeURIComponent(m[1]!)
      const name = actor.split("~")[1] ?? ""
      if (name === "missing")
        return json(res, 404, { error: { type: "record-not-found", message: "Actor was not found" } })
      if (behave(name, hit, res)) return
      const id = `run${++next}`
      const run = {
        actor,
        maxItems: Number(url.searchParams.get("maxItems") ?? 1000),
        charge: Number(url.searchParams.get("maxTotalChargeUsd") ?? Number.NaN),
        polls: 0,
        input: JSON.parse(body || "{}"),
        at: Date.now()
      }
      runs.set(id, run)
      started.push(run)
      return json(res, 201, { data: { id, actId: actor, status: "RUNNING", defaultDatasetId: `ds-${id}` } })
    }
    m = /^\/v2\/actor-runs\/([^/]+)\/abort$/.exec(url.pathname)
    if (m && req.method === "POST") {
      aborted.push(m[1]!)
      return json(res, 200, { data: { id: m[1], status: "ABORTED", defaultDatasetId: `ds-${m[1]}` } })
    }
    m = /^\/v2\/actor-runs\/([^/]+)$/.exec(url.pathname)
    if (m) {
      const run = runs.get(m[1]!)
      if (!run) return json(res, 404, { error: { type: "record-not-found" } })
      run.polls++
      // `~slow` runs never end (and with `runSeconds`, no run ends before then): each wait is held for
      // waitForFinish (at most 1 s here) and answers RUNNING
      const early = options.runSeconds !== undefined && Date.now() - run.at < options.runSeconds * 1000
      if (run.actor.endsWith("~slow") || early) {
        const wait = Math.min(1, Number(url.searchParams.get("waitForFinish") ?? 0)) * 1000
        setTimeout(
          () => json(res, 200, { data: { id: m![1], status: "RUNNING", defaultDatasetId: `ds-${m![1]}` } }),
          wait
        )
        return
      }
      const failedActor = run.actor.endsWith("~fail")
      const status = failedActor ? "FAILED" : run.polls >= 1 ? "SUCCEEDED" : "RUNNING"
      const capped =
        (run.actor.endsWith("~capped") || options.capped?.includes(run.actor) === true) && status === "SUCCEEDED"
      return json(res, 200, {
        data: {
          id: m[1],
          status,
          defaultDatasetId: `ds-${m[1]}`,
          ...(capped
            ? { statusMessage: "Maximum cost per run reached, finishing.", usageTotalUsd: run.charge }
            : { usageTotalUsd: 0 })
        }
      })
    }
    m = /^\/v2\/datasets\/ds-([^/]+)\/items$/.exec(url.pathname)
    if (m) {
      const run = runs.get(m[1]!)
      if (!run) return json(res, 404, { error: { type: "record-not-found" } })
      const template = recorded("provider-item")
      const limit = Number(url.searchParams.get("limit") ?? run.maxItems)
      const total = Math.min(run.maxItems, options.items ?? 40)
      const capped = run.actor.endsWith("~capped") || options.capped?.includes(run.actor) === true
      const count = run.actor.endsWith("~empty") ? 0 : capped ? Math.floor(total / 2) : total
      if (run.actor.endsWith("~notes"))
        return json(res, 200, [{ input: run.input, note: "No results found for this input" }])
      const recordedItems = options.datasets?.[run.actor]
      if (recordedItems !== undefined) {
        const hidden = url.searchParams.get("clean") !== "true" && url.searchParams.get("skipHidden") !== "true"
        const strip = (item: unknown) =>
          hidden || item === null || typeof item !== "object"
            ? item
            : Object.fromEntries(Object.entries(item).filter(([k]) => !k.startsWith("#")))
        return json(
          res,
          200,
          Array.from({ length: Math.min(count, limit) }, (_, i) => strip(recordedItems[i % recordedItems.length]))
        )
      }
      const items = Array.from({ length: Math.min(count, limit) }, (_, i) => ({
        ...template,
        title: `${String(template["title"])} ${i + 1}`,
        totalScore: Math.round((3.5 + ((i * 7) % 15) / 10) * 10) / 10,
        reviewsCount: 1000 + i
      }))
      return json(res, 200, items)
    }
    json(res, 404, { error: { type: "page-not-found" } })
  }, port)
  return fixture.then((f) => ({ ...f, started, aborted }))
}

/** The environment that points the router at fixtures (any `https://<store>.shop.example` is the fixture's `<store>`). */
export const env = (urls: { readonly storefront: string; readonly forum: string; readonly provider: string }) => ({
  UPSTREAMS: "storefronts=storefront,forum=forum,maps.places=provider,explore.run=provider",
  STOREFRONT_ORIGINS: `https://*.shop.example=${urls.storefront}/*`,
  FORUM_AUTH_URL: urls.forum,
  FORUM_API_URL: urls.forum,
  FORUM_CLIENT_ID: credentials.clientId,
  FORUM_CLIENT_SECRET: credentials.clientSecret,
  PROVIDER_URL: urls.provider,
  PROVIDER_TOKEN: credentials.providerToken,
  PROVIDER_OPS: JSON.stringify(mapsPlacesJson),
  PROVIDER_EXPLORE: JSON.stringify([{ actor: "fixture~app-charts", price: { credits: 1, rows: 10 } }])
})

/** A provider mapping of maps `places` onto the fixture actor: its items to the catalogue's place card. */
/** A provider mapping of maps `places` onto the fixture actor, as an operator writes it (PROVIDER_OPS). */
export const mapsPlacesJson = {
  "maps.places": {
    actor: "fixture~maps-places",
    usdPerItem: 0.004,
    input: { placeIds: ["$subject"], maxCrawledPlaces: "$rows" },
    rows: {
      placeId: "placeId",
      name: "title",
      address: "address",
      lat: "location.lat",
      lon: "location.lng",
      rating: "totalScore",
      reviewCount: "reviewsCount",
      categories: "categories",
      phone: "phone",
      website: "website",
      hours: "hoursByDay",
      liveOccupancyPercent: "popularTimesLivePercent"
    }
  }
}

/** The same, decoded as the adapter's settings hold it. */
export const mapsPlaces = Either.getOrThrow(Mapping.decodeMappings(mapsPlacesJson, "fixture"))

/** The product card of the quick-commerce fixture actors (fictional: an operator's actor, not a shipped one). */
export const quickCommerceItem = {
  rank: 1,
  name: "Aashirvaad Whole Wheat Atta",
  brand: "Aashirvaad",
  unit: "5 kg",
  price: 245,
  mrp: 290,
  off: 15.5,
  available: true,
  quantity: 12,
  rating: 4.4,
  ratings: 1532
}

const quickCommerceRows = {
  name: "name",
  brand: "brand",
  packSize: "unit",
  price: { path: "price", as: "number" },
  mrp: { path: "mrp", as: "number" },
  discountPct: { path: "off", as: "number" },
  inStock: { path: "available", as: "boolean" },
  stockCount: { path: "quantity", as: "integer" },
  rating: { path: "rating", as: "number" },
  ratingCount: { path: "ratings", as: "integer" }
}

/**
 * An operator's mappings of the three fetching ops of a quick-commerce platform onto a fixture actor that takes the
 * store as `locator` names it: `pincode` ({ pincode }) or `geo` ({ latitude, longitude }).
 */
export const quickCommerceJson = (platform: string, actor: string, locator: "pincode" | "geo") => {
  const at =
    locator === "pincode"
      ? { pincode: "$request.store.pincode" }
      : { latitude: "$request.store.lat", longitude: "$request.store.lon" }
  return {
    [`${platform}.products`]: {
      actor,
      usdPerItem: 0.002,
      input: { productUrls: ["$subject"], ...at },
      rows: quickCommerceRows
    },
    [`${platform}.search`]: {
      actor,
      usdPerItem: 0.002,
      input: { keyword: "$query", maxItems: "$rows", ...at },
      rows: { rank: { path: "rank", as: "integer" }, ...quickCommerceRows }
    },
    [`${platform}.category`]: {
      actor,
      usdPerItem: 0.002,
      input: { category: "$request.category", subCategory: "$request.subCategory", maxItems: "$rows", ...at },
      rows: { rank: { path: "rank", as: "integer" }, ...quickCommerceRows }
    }
  }
}
