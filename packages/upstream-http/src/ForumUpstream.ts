/**
 * Native forum adapter (`forum` posts, subreddit, comments, search): the forum's JSON listings read on its OAuth host
 * with an app-only token (client credentials, cached and renewed before it expires), the required User-Agent form,
 * `raw_json=1`, pages of 100 with `after`, and a post's comment tree with its `more` stubs expanded up to the limit.
 */
import { FetchHttpClient, HttpClientRequest } from "@effect/platform"
import { type Measurements as M, Upstream as U } from "@pdr/domain"
import { Clock, Config, Duration, Effect, Either, Option, Redacted, Schema, SynchronizedRef } from "effect"
import * as Delivered from "./Delivered.js"
import * as Policy from "./Policy.js"

/** The name this adapter reports as `source`. */
export const source = "forum"

/** Where the forum is and who this app is. */
export interface Settings {
  /** The host that issues tokens (`/api/v1/access_token`). */
  readonly authUrl: string
  /** The OAuth host that serves reads. */
  readonly apiUrl: string
  /** The public host permalinks are made absolute with. */
  readonly webUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** `<platform>:<app id>:<version> (by /u/<user>)`. */
  readonly userAgent: string
}

/** Settings from FORUM_AUTH_URL, FORUM_API_URL, FORUM_WEB_URL, FORUM_CLIENT_ID, FORUM_CLIENT_SECRET, FORUM_APP_ID, FORUM_USERNAME. */
export const settingsConfig: Config.Config<Settings> = Config.all({
  authUrl: Config.string("FORUM_AUTH_URL").pipe(Config.withDefault("https://www.reddit.com")),
  apiUrl: Config.string("FORUM_API_URL").pipe(Config.withDefault("https://oauth.reddit.com")),
  webUrl: Config.string("FORUM_WEB_URL").pipe(Config.withDefault("https://www.reddit.com")),
  clientId: Config.string("FORUM_CLIENT_ID"),
  clientSecret: Config.redacted("FORUM_CLIENT_SECRET"),
  appId: Config.string("FORUM_APP_ID").pipe(Config.withDefault("pdr-api")),
  user: Config.string("FORUM_USERNAME").pipe(Config.withDefault("pdr-operator"))
}).pipe(Config.map(({ appId, user, ...rest }) => ({ ...rest, userAgent: userAgent(appId, user) })))

/** The forum's required User-Agent form. */
export const userAgent = (appId: string, user: string, version = "0.1.0") => `node:${appId}:${version} (by /u/${user})`

const Token = Schema.Struct({ access_token: Schema.String, token_type: Schema.String, expires_in: Schema.Number })

const Post = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  subreddit: Schema.String,
  author: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  score: Schema.Number,
  upvote_ratio: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  num_comments: Schema.Number,
  permalink: Schema.String,
  url: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  is_self: Schema.Boolean,
  is_video: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  is_gallery: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  post_hint: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  poll_data: Schema.optionalWith(Schema.Unknown, { default: () => null }),
  created_utc: Schema.Number
})

const Thing = Schema.Struct({ kind: Schema.String, data: Schema.Unknown })

/** A listing page. */
export const Listing = Schema.Struct({
  kind: Schema.Literal("Listing"),
  data: Schema.Struct({
    after: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    children: Schema.Array(Thing)
  })
})

const Comment = Schema.Struct({
  id: Schema.String,
  parent_id: Schema.String,
  link_id: Schema.String,
  author: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  body: Schema.String,
  score: Schema.Number,
  depth: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  created_utc: Schema.Number,
  permalink: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  replies: Schema.optionalWith(Schema.Unknown, { default: () => "" })
})

const More = Schema.Struct({
  children: Schema.Array(Schema.String),
  count: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  parent_id: Schema.optionalWith(Schema.String, { default: () => "" })
})

/** The depth of comment trees asked for (`depth`): the forum's deepest; deeper threads come as stubs, continued. */
const maxDepth = 10

const MoreChildren = Schema.Struct({
  json: Schema.Struct({ data: Schema.Struct({ things: Schema.Array(Thing) }) })
})

const sorts: Readonly<Record<string, string>> = {
  hot: "hot",
  newest: "new",
  top: "top",
  rising: "rising",
  relevance: "relevance",
  most_commented: "comments"
}
const windows: Readonly<Record<string, string>> = {
  "1h": "hour",
  "1d": "day",
  "7d": "week",
  "30d": "month",
  "1y": "year",
  any: "all"
}

const person = (a: string | null) => (a === null || a === "[deleted]" || a === "" ? null : a)
const at = (utc: number) => new Date(utc * 1000).toISOString()
const bare = (id: string) => id.replace(/^t\d_/, "")

/** The forum adapter. */
export type Adapter = U.Adapter

/** The adapter over a policy. */
export const make = (policy: Policy.Policy, settings: Settings): Effect.Effect<Adapter> =>
  Effect.gen(function* () {
    const token = yield* SynchronizedRef.make<{ readonly value: string; readonly renewAt: number } | null>(null)
    const absolute = (path: string) =>
      path.startsWith("http") ? path : `${settings.webUrl.replace(/\/+$/, "")}${path}`

    /** The cached app token, fetched again when it is within a tenth of its life (at most 5 min) of expiring. */
    const bearer = (renew: boolean) =>
      SynchronizedRef.modifyEffect(token, (cached) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          if (cached !== null && !renew && now < cached.renewAt) return [cached.value, cached] as const
          const reply = yield* policy.send(
            HttpClientRequest.post(`${settings.authUrl}/api/v1/access_token`).pipe(
              HttpClientRequest.basicAuth(settings.clientId, Redacted.value(settings.clientSecret)),
              HttpClientRequest.setHeader("user-agent", settings.userAgent),
              HttpClientRequest.bodyUrlParams({ grant_type: "client_credentials" })
            )
          )
          if (reply.status !== 200)
            return yield* new Policy.Failure({
              reason: "failed",
              detail: `the forum refused the app token (${reply.status})`
            })
          const t = yield* Policy.json(Token)(reply)
          const life = t.expires_in * 1000
          const next = { value: t.access_token, renewAt: now + life - Math.min(300_000, life / 10) }
          return [next.value, next] as const
        })
      )

    /** One read on the OAuth host: a 401 renews the token once. */
    const read = (path: string, params: Record<string, string>) =>
      Effect.gen(function* () {
        // redirects are not followed: the forum redirects an unknown community to a search page (issue 20)
        const get = (value: string) =>
          policy
            .send(
              HttpClientRequest.get(`${settings.apiUrl}${path}`, {
                urlParams: { ...params, raw_json: "1" },
                headers: { "user-agent": settings.userAgent, accept: "application/json" }
              }).pipe(HttpClientRequest.bearerToken(value))
            )
            .pipe(Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }))
        const first = yield* get(yield* bearer(false))
        return first.status === 401 ? yield* get(yield* bearer(true)) : first
      })

    const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown, what: string) =>
      Either.mapLeft(
        Schema.decodeUnknownEither(schema)(value),
        () => new Policy.Failure({ reason: "malformed", detail: `the forum answered a ${what} of an unexpected shape` })
      )

    const postRow = (p: typeof Post.Type, position: number): M.Row => ({
      position,
      postId: p.id,
      title: p.title,
      community: p.subreddit,
      author: person(p.author),
      score: p.score,
      upvoteRatio: p.upvote_ratio,
      commentsCount: p.num_comments,
      kind:
        p.poll_data !== null && p.poll_data !== undefined
          ? "poll"
          : p.is_gallery
            ? "gallery"
            : p.is_video || p.post_hint === "hosted:video" || p.post_hint === "rich:video"
              ? "video"
              : p.post_hint === "image"
                ? "image"
                : p.is_self
                  ? "text"
                  : "link",
      permalink: absolute(p.permalink),
      url: p.is_self ? null : p.url,
      postedAt: at(p.created_utc)
    })
    /** A post row's point, for its post (rows.md), measured by the catalogue's metric sources. */
    const postPoints = (platform: string, rows: ReadonlyArray<M.Row>): Array<U.PointReport> =>
      rows.flatMap((row) => {
        const point = Delivered.point(platform, String(row["postId"]), [row])
        return point ? [point] : []
      })

    const notServed = (
      reply: Policy.Reply,
      what: string
    ): Option.Option<{ readonly _tag: "NotFound"; readonly source: string; readonly detail: string }> =>
      reply.status === 404 || reply.status === 403
        ? Option.some({ _tag: "NotFound", source, detail: `the forum has no ${what} (${reply.status})` } as const)
        : reply.status >= 300 && reply.status < 400
          ? Option.some({
              _tag: "NotFound",
              source,
              detail: `the forum has no ${what}: it redirects (${reply.status}) to ${reply.headers["location"] ?? "another page"}`
            } as const)
          : Option.none()

    const failed = (status: number, what: string) =>
      new Policy.Failure({ reason: "failed", detail: `the forum answered ${status} for ${what}` })

    /** Posts of a listing, pages of 100 with `after`, until `rows` or the end. */
    /** `bySubject`: the rows of a query (search) name their post as their `subject` (rows.md). */
    const listing = (
      unit: U.UnitRequest,
      path: string,
      params: Record<string, string>,
      what: string,
      bySubject = false
    ) =>
      Effect.gen(function* () {
        const rows = unit.rows
        const out: Array<M.Row> = []
        let after: string | null = null
        for (;;) {
          const reply: Policy.Reply = yield* read(path, { ...params, limit: "100", ...(after ? { after } : {}) })
          if (bySubject && reply.status >= 300 && reply.status < 400) return yield* failed(reply.status, what)
          const none = notServed(reply, what)
          if (Option.isSome(none)) return none.value
          if (reply.status !== 200) return yield* failed(reply.status, what)
          const page: typeof Listing.Type = yield* Policy.json(Listing)(reply)
          for (const child of page.data.children) {
            if (child.kind !== "t3") continue
            const post = yield* decode(Post, child.data, "post")
            if (out.length >= rows) break
            out.push(bySubject ? { subject: post.id, ...postRow(post, out.length + 1) } : postRow(post, out.length + 1))
          }
          after = page.data.after
          if (out.length >= rows || after === null || page.data.children.length === 0) break
        }
        yield* Delivered.check(unit, out)
        return {
          _tag: "Delivered",
          rows: out,
          exhaustive: out.length < rows,
          points: postPoints(unit.platform, out),
          source
        } as const
      })

    /**
     * A post's comments depth first, to the full depth (`depth` sent), its `more` stubs expanded with morechildren
     * and its "continue this thread" stubs with the comment's own thread, until `rows` or the unit's budget; what
     * could not be expanded is counted (`missing`) and the unit is then not exhaustive (issue 20).
     */
    const comments = (unit: U.UnitRequest) =>
      Effect.gen(function* () {
        const postId = unit.subject ?? ""
        const rows = unit.rows
        const reply = yield* read(`/comments/${postId}`, {
          limit: String(Math.min(500, rows)),
          depth: String(maxDepth),
          sort: "confidence"
        })
        const none = notServed(reply, `post ${postId}`)
        if (Option.isSome(none)) return none.value
        if (reply.status !== 200) return yield* failed(reply.status, `post ${postId}`)
        const pair = yield* Policy.json(Schema.Tuple(Listing, Listing))(reply)
        const head = pair[0].data.children.find((c) => c.kind === "t3")
        if (head === undefined) return { _tag: "NotFound", source, detail: `the forum has no post ${postId}` } as const
        const post = yield* decode(Post, head.data, "post")
        const out: Array<M.Row> = []
        const seen = new Map<string, number>()
        /** Stubs left: `more` ids (expanded 100 at a time) and threads to continue (by their parent comment). */
        const pending: Array<{ readonly id: string; readonly count: number }> = []
        const threads: Array<{ readonly parent: string; readonly count: number }> = []
        /** `offset`: added to the depths of a continued thread (the forum counts them from its first comment). */
        const walk = (
          things: ReadonlyArray<typeof Thing.Type>,
          offset: number,
          skip?: string
        ): Either.Either<void, Policy.Failure> => {
          for (const thing of things) {
            if (thing.kind === "more") {
              const more = decode(More, thing.data, "more stub")
              if (Either.isLeft(more)) return more
              const m = more.right
              if (m.children.length === 0) {
                // "continue this thread": the rest of the thread below its parent comment
                if (m.parent_id.startsWith("t1_"))
                  threads.push({ parent: bare(m.parent_id), count: Math.max(1, m.count) })
              } else {
                const each = Math.max(1, Math.round(m.count / m.children.length))
                for (const id of m.children) pending.push({ id, count: each })
              }
              continue
            }
            if (thing.kind !== "t1") continue
            const c = decode(Comment, thing.data, "comment")
            if (Either.isLeft(c)) return c
            const d = c.right
            const depth = d.depth + offset
            if (d.id !== skip && !seen.has(d.id)) {
              seen.set(d.id, depth)
              if (out.length < rows)
                out.push({
                  position: out.length + 1,
                  commentId: d.id,
                  postId: bare(d.link_id),
                  parentId: d.parent_id.startsWith("t1_") ? bare(d.parent_id) : null,
                  author: person(d.author),
                  body: d.body,
                  score: d.score,
                  depth,
                  postedAt: at(d.created_utc),
                  permalink: d.permalink === null ? null : absolute(d.permalink)
                })
            }
            if (typeof d.replies === "object" && d.replies !== null) {
              const replies = decode(Listing, d.replies, "reply listing")
              if (Either.isLeft(replies)) return replies
              const inner = walk(replies.right.data.children, offset)
              if (Either.isLeft(inner)) return inner
            }
          }
          return Either.void
        }
        yield* Either.match(walk(pair[1].data.children, 0), { onLeft: Effect.fail, onRight: () => Effect.void })
        // expansions run while rows are missing and the unit's budget has a reserve left; one that fails ends them
        const reserve = Duration.toMillis(policy.settings.unitBudget) / 4
        let stopped = false
        while (out.length < rows && (pending.length > 0 || threads.length > 0) && !stopped) {
          if ((yield* policy.timeLeft) < reserve) break
          if (pending.length > 0) {
            const batch = pending.slice(0, 100)
            const more = yield* Effect.either(
              read("/api/morechildren", {
                api_type: "json",
                link_id: `t3_${post.id}`,
                children: batch.map((b) => b.id).join(","),
                depth: String(maxDepth),
                sort: "confidence"
              })
            )
            if (Either.isLeft(more) || more.right.status !== 200) {
              stopped = true
              break
            }
            const body = yield* Effect.either(Policy.json(MoreChildren)(more.right))
            if (Either.isLeft(body)) {
              stopped = true
              break
            }
            pending.splice(0, batch.length)
            yield* Either.match(walk(body.right.json.data.things, 0), {
              onLeft: Effect.fail,
              onRight: () => Effect.void
            })
            continue
          }
          const thread = threads[0]!
          const parentDepth = seen.get(thread.parent) ?? 0
          const focus = yield* Effect.either(
            read(`/comments/${post.id}`, {
              comment: thread.parent,
              depth: String(maxDepth),
              limit: "500",
              sort: "confidence"
            })
          )
          if (Either.isLeft(focus) || focus.right.status !== 200) {
            stopped = true
            break
          }
          const body = yield* Effect.either(Policy.json(Schema.Tuple(Listing, Listing))(focus.right))
          if (Either.isLeft(body)) {
            stopped = true
            break
          }
          threads.shift()
          // the thread starts at the parent comment (depth 0 there): its depth here is added to every reply
          const first = body.right[1].data.children.find((t) => t.kind === "t1")
          const firstDepth = first
            ? Either.getOrElse(
                Either.map(decode(Comment, first.data, "comment"), (c) => c.depth),
                () => 0
              )
            : 0
          yield* Either.match(walk(body.right[1].data.children, parentDepth - firstDepth, thread.parent), {
            onLeft: Effect.fail,
            onRight: () => Effect.void
          })
        }
        yield* Delivered.check(unit, out)
        const missing = out.length < rows ? [...pending, ...threads].reduce((n, s) => n + s.count, 0) : 0
        return {
          _tag: "Delivered",
          rows: out,
          exhaustive: out.length < rows && missing === 0,
          ...(missing > 0 ? { missing } : {}),
          points: postPoints(unit.platform, [postRow(post, 1)]),
          source
        } as const
      })

    const window = (request: U.UnitRequest["request"]) =>
      request["sort"] === "top" ? { t: windows[String(request["postedWithin"])] ?? "all" } : {}

    const fetch = (unit: U.UnitRequest): Effect.Effect<U.UnitOutcome, U.UpstreamFailed> => {
      const r = unit.request
      const subject = encodeURIComponent(unit.subject ?? "")
      const run: Effect.Effect<U.UnitOutcome, Policy.Failure> =
        unit.op === "posts"
          ? listing(unit, `/user/${subject}/submitted`, { sort: "new" }, `user ${unit.subject}`)
          : unit.op === "subreddit"
            ? listing(
                unit,
                `/r/${subject}/${sorts[String(r["sort"])] ?? "hot"}`,
                window(r),
                `community ${unit.subject}`
              )
            : unit.op === "search"
              ? listing(
                  unit,
                  "/search",
                  { q: String(r["query"]), type: "link", sort: sorts[String(r["sort"])] ?? "relevance", ...window(r) },
                  "search",
                  true
                )
              : unit.op === "comments"
                ? comments(unit)
                : Effect.fail(
                    new Policy.Failure({ reason: "failed", detail: `the forum adapter does not serve ${unit.op}` })
                  )
      return policy.unit(source, run)
    }

    return { name: source, fetch } satisfies U.Adapter
  })
