// D15 / issue 10: the native forum adapter through the real HttpClient against a loopback token host and OAuth host
// (the fixture refuses reads without a valid app token, the User-Agent form or raw_json=1).
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as ForumUpstream from "../src/ForumUpstream.js"
import { decodeRow, delivered, failed, policy, run, tight, unit } from "./support/Adapters.js"
import * as Fixtures from "./support/Fixtures.js"

let host: Awaited<ReturnType<typeof Fixtures.forum>>
let adapter: { readonly fetch: ForumUpstream.Adapter["fetch"] }

const settings = (url: string): ForumUpstream.Settings => ({
  authUrl: url,
  apiUrl: url,
  webUrl: "https://forum.example",
  clientId: Fixtures.credentials.clientId,
  clientSecret: Redacted.make(Fixtures.credentials.clientSecret),
  userAgent: ForumUpstream.userAgent("pdr-test", "tester")
})
const community = (name: string, limit = 10, sort = "hot") =>
  run(adapter.fetch(unit("forum", "subreddit", { subject: name, sort, limit }, name)))

beforeAll(async () => {
  host = await Fixtures.forum()
  adapter = await Effect.runPromise(ForumUpstream.make(await policy(), settings(host.url)))
})
afterAll(() => host.close())

describe("ForumUpstream", () => {
  it("a community listing follows `after` page by page, rows per rows.md with a point per post", async () => {
    const d = delivered((await community("paged", 50)).result)
    assert.strictEqual(d.rows.length, 50)
    assert.strictEqual(host.hits.get("/r/paged/hot"), 3, "pages of 20 followed with after")
    for (const row of d.rows) decodeRow("forum", "subreddit", row)
    assert.strictEqual(d.source, "forum")
    assert.deepStrictEqual(new Set(d.rows.map((r) => r["postId"])).size, 50, "no page read twice")
    assert.deepStrictEqual(
      d.points.map((p) => p.subject),
      d.rows.map((r) => r["postId"])
    )
    assert.deepStrictEqual(d.points[0]!.metrics, {
      score: d.rows[0]!["score"] as number,
      comments_count: d.rows[0]!["commentsCount"] as number
    })
    assert.deepStrictEqual(
      d.rows.slice(0, 6).map((r) => r["kind"]),
      ["text", "link", "image", "video", "gallery", "poll"]
    )
    assert.strictEqual(d.rows[0]!["url"], null, "a text post has no link target")
    assert.strictEqual(d.rows[4]!["author"], null, "a deleted author is null")
    assert.match(String(d.rows[0]!["permalink"]), /^https:\/\/forum\.example\/r\//)
    assert.strictEqual(host.hits.get("/api/v1/access_token"), 1, "one app token for every read")
  })

  it("a user's posts and a search; fewer than asked is exhaustive; an empty result is no rows", async () => {
    const posts = delivered(
      (await run(adapter.fetch(unit("forum", "posts", { subject: "someone", limit: 50 }, "someone")))).result
    )
    assert.deepStrictEqual([posts.rows.length, posts.exhaustive], [30, true])
    const search = delivered((await run(adapter.fetch(unit("forum", "search", { query: "queues", limit: 20 })))).result)
    assert.deepStrictEqual([search.rows.length, search.exhaustive], [20, false])
    assert.deepStrictEqual(
      search.rows.map((r) => r["subject"]),
      search.rows.map((r) => r["postId"]),
      "a search row's subject is its post"
    )
    assert.isUndefined(posts.rows[0]!["subject"], "a user's posts take the unit's subject from the domain")
    for (const { subject: _s, ...row } of search.rows) decodeRow("forum", "subreddit", row)
    const none = delivered((await run(adapter.fetch(unit("forum", "search", { query: "nothing", limit: 20 })))).result)
    assert.deepStrictEqual([none.rows.length, none.exhaustive], [0, true])
  })

  it("a post's comment tree, depth first, with its `more` stub expanded through morechildren up to the limit", async () => {
    const all = delivered(
      (await run(adapter.fetch(unit("forum", "comments", { subjects: ["abc123"], limit: 100 }, "abc123")))).result
    )
    assert.strictEqual(all.rows.length, 55, "15 in the tree and 40 behind the stub")
    assert.isTrue(all.exhaustive)
    for (const row of all.rows) decodeRow("forum", "comments", row)
    assert.deepStrictEqual(
      all.rows.slice(0, 3).map((r) => [r["commentId"], r["parentId"], r["depth"]]),
      [
        ["c0", null, 0],
        ["c0r0", "c0", 1],
        ["c0r1", "c0", 1]
      ]
    )
    assert.deepStrictEqual(all.points, [{ subject: "abc123", metrics: { score: 1000, comments_count: 200 } }])
    const some = delivered(
      (await run(adapter.fetch(unit("forum", "comments", { subjects: ["def456"], limit: 20 }, "def456")))).result
    )
    assert.deepStrictEqual([some.rows.length, some.exhaustive], [20, false])
  })

  it("404 and 403 are not_found", async () => {
    for (const name of ["missing", "private"]) {
      const r = (await community(name)).result
      assert.isTrue(r._tag === "Right" && r.right._tag === "NotFound", name)
    }
  })

  it("429 with Retry-After and a 500 are retried; malformed JSON, a web page and a hang fail with a clear detail", async () => {
    const limited = await community("ratelimited")
    assert.strictEqual(delivered(limited.result).rows.length, 10)
    assert.isAtLeast(limited.ms, 950)
    assert.strictEqual(delivered((await community("flaky")).result).rows.length, 10)
    assert.strictEqual(host.hits.get("/r/flaky/hot"), 2)
    assert.match(failed((await community("malformed")).result).detail, /malformed JSON/)
    assert.match(failed((await community("html")).result).detail, /content type text\/html, not JSON/)
    const short = await Effect.runPromise(ForumUpstream.make(await policy(tight), settings(host.url)))
    const hang = await run(short.fetch(unit("forum", "subreddit", { subject: "hang", sort: "hot", limit: 10 }, "hang")))
    assert.match(failed(hang.result).detail, /^timeout/)
  })

  it("a token the forum refuses (401) is fetched again once and the read repeated", async () => {
    const before = host.hits.get("/api/v1/access_token") ?? 0
    host.revoke()
    assert.strictEqual(delivered((await community("after-revoke", 5)).result).rows.length, 5)
    assert.strictEqual(host.hits.get("/api/v1/access_token"), before + 1)
    assert.strictEqual(host.hits.get("/r/after-revoke/hot"), 2, "refused once, then read with the new token")
  })

  it("the token is renewed before it expires", async () => {
    const short = await Fixtures.forum({ tokenSeconds: 1 })
    try {
      const a = await Effect.runPromise(ForumUpstream.make(await policy(), settings(short.url)))
      const read = () => run(a.fetch(unit("forum", "subreddit", { subject: "x", limit: 5 }, "x")))
      delivered((await read()).result)
      delivered((await read()).result)
      assert.strictEqual(short.hits.get("/api/v1/access_token"), 1)
      await new Promise((done) => setTimeout(done, 950))
      delivered((await read()).result)
      assert.strictEqual(short.hits.get("/api/v1/access_token"), 2)
    } finally {
      await short.close()
    }
  })

  it("reads the X-Ratelimit headers and slows down before the window is used up", async () => {
    const tight = await Fixtures.forum({ remaining: 3 })
    try {
      const a = await Effect.runPromise(ForumUpstream.make(await policy(), settings(tight.url)))
      const read = () => run(a.fetch(unit("forum", "subreddit", { subject: "x", limit: 5 }, "x")))
      const first = await read()
      delivered(first.result)
      const second = await read()
      delivered(second.result)
      assert.isAtLeast(second.ms, 400, "remaining 2 of a window resetting in 1 s: wait about 500 ms")
    } finally {
      await tight.close()
    }
  })

  it('issue 20: comments to the full depth, `more` and "continue this thread" stubs expanded; exhaustive when all are', async () => {
    const before = host.total()
    const d = delivered(
      (await run(adapter.fetch(unit("forum", "comments", { subjects: ["deep1"], limit: 100 }, "deep1")))).result
    )
    assert.strictEqual(d.rows.length, 45, "39 comments in 3 threads 13 deep and 6 behind a more stub")
    for (const row of d.rows) decodeRow("forum", "comments", row)
    assert.strictEqual(new Set(d.rows.map((r) => r["commentId"])).size, 45, "no comment twice")
    assert.strictEqual(Math.max(...d.rows.map((r) => Number(r["depth"]))), 12)
    const deepest = d.rows.find((r) => r["commentId"] === "t1d12")!
    assert.deepStrictEqual([deepest["depth"], deepest["parentId"]], [12, "t1d11"])
    assert.isTrue(d.exhaustive)
    assert.isUndefined(d.missing)
    assert.strictEqual(host.total() - before, 5, "the tree, one morechildren, three continued threads")
  })

  it("issue 20: a thread that cannot be continued is counted as missing and the unit is not exhaustive", async () => {
    // its own host: the failing continuations open that host's circuit
    const own = await Fixtures.forum()
    try {
      const failing = await Effect.runPromise(ForumUpstream.make(await policy(), settings(own.url)))
      const d = delivered(
        (await run(failing.fetch(unit("forum", "comments", { subjects: ["deepfail"], limit: 100 }, "deepfail")))).result
      )
      assert.strictEqual(d.rows.length, 36, "3 threads to depth 9, and the 6 of the more stub")
      assert.isFalse(d.exhaustive)
      assert.strictEqual(d.missing, 3)
    } finally {
      await own.close()
    }
    const few = delivered(
      (await run(adapter.fetch(unit("forum", "comments", { subjects: ["deep2"], limit: 20 }, "deep2")))).result
    )
    assert.deepStrictEqual([few.rows.length, few.exhaustive, few.missing], [20, false, undefined])
  })

  it("issue 20: a community or user the forum redirects to a search page is not_found, the redirect not followed", async () => {
    for (const op of ["subreddit", "posts"] as const) {
      const r = (await run(adapter.fetch(unit("forum", op, { subject: "gone", limit: 10 }, "gone")))).result
      assert.isTrue(r._tag === "Right" && r.right._tag === "NotFound", `${op}: ${JSON.stringify(r)}`)
      if (r._tag === "Right" && r.right._tag === "NotFound") assert.match(r.right.detail, /redirects \(302\)/)
    }
    assert.isUndefined(host.hits.get("/subreddits/search.json"), "never followed")
  })
})
