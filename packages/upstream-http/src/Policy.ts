/**
 * The one failure policy of every HTTP adapter: a time budget per unit, retries with jittered exponential backoff on
 * 429 and 5xx that honour `Retry-After` within that budget, a concurrency limit and a circuit breaker per host, the
 * `X-Ratelimit-*` headers read to slow down before being refused, and strict decoding of what comes back.
 */
import { HttpClient, type HttpClientRequest } from "@effect/platform"
import { Calls, Setting, Upstream as U } from "@pdr/domain"
import { Clock, Config, Data, Duration, Effect, Either, FiberRef, Option, ParseResult, Schedule, Schema } from "effect"
import { Circuits } from "./Circuits.js"
import * as PolicyMetrics from "./PolicyMetrics.js"

/** The policy's settings. */
export interface Settings {
  /** Time budget of one unit (every request, retry and wait of it). */
  readonly unitBudget: Duration.Duration
  /** Requests in flight per upstream host. */
  readonly perHost: number
  /** Retries of one request on 429, 5xx or a transport error. */
  readonly retries: number
  /** First backoff delay (doubled each retry, jittered). */
  readonly backoff: Duration.Duration
  /** Consecutive failed attempts that open a host's circuit. */
  readonly breakerFailures: number
  /** How long an open circuit answers at once before one probe is let through. */
  readonly breakerPause: Duration.Duration
}

/** Defaults: the domain's unit timeout as the budget (D12), 8 per host, 3 retries from 200 ms, open after 5 for 30 s. */
export const defaults: Settings = {
  unitBudget: Calls.CallSettings.defaultValue().unitTimeout,
  perHost: 8,
  retries: 3,
  backoff: Duration.millis(200),
  breakerFailures: 5,
  breakerPause: Duration.seconds(30)
}

/**
 * Settings from UPSTREAM_TIMEOUT_MS (the domain's unit timeout, read again here as the budget retries are planned
 * in), UPSTREAM_PER_HOST, UPSTREAM_RETRIES, UPSTREAM_BACKOFF_MS, UPSTREAM_BREAKER_FAILURES, UPSTREAM_BREAKER_PAUSE_MS.
 */
export const settingsConfig: Config.Config<Settings> = Config.all({
  unitBudget: Setting.integer("UPSTREAM_TIMEOUT_MS", Duration.toMillis(defaults.unitBudget), { least: 1 }).pipe(
    Config.map(Duration.millis)
  ),
  perHost: Setting.integer("UPSTREAM_PER_HOST", defaults.perHost, { least: 1 }),
  retries: Setting.integer("UPSTREAM_RETRIES", defaults.retries, { least: 0 }),
  backoff: Setting.integer("UPSTREAM_BACKOFF_MS", 200, { least: 0 }).pipe(Config.map(Duration.millis)),
  breakerFailures: Setting.integer("UPSTREAM_BREAKER_FAILURES", defaults.breakerFailures, { least: 1 }),
  breakerPause: Setting.integer("UPSTREAM_BREAKER_PAUSE_MS", 30_000, { least: 0 }).pipe(Config.map(Duration.millis))
})

/** Why a request gave nothing usable. `NotServed` is the host's answer (404, 403, ...), not a failure of the host. */
export class Failure extends Data.TaggedError("Failure")<{
  readonly reason: "failed" | "timeout" | "open" | "malformed"
  readonly detail: string
  /** An open circuit: in how many ms the host is probed again (an attempt sooner is refused at once). */
  readonly retryInMs?: number
}> {}

/** A response with its body read. */
export interface Reply {
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
}

class Retryable extends Data.TaggedError("Retryable")<{
  readonly detail: string
  readonly retryAfter: Duration.Duration
}> {}

interface Breaker {
  readonly failures: number
  readonly openUntil: number | null
  readonly probing: boolean
}

/** A host's state: read and written in single synchronous steps (JavaScript runs one at a time). */
interface Host {
  readonly semaphore: Effect.Semaphore
  breaker: Breaker
  limit: { readonly remaining: number; readonly resetAt: number } | null
  /** Requests to it under way (waiting, sent or between retries): a host with none may be forgotten. */
  active: number
}

/**
 * Hosts whose state is kept beyond their requests: every storefront is a host of its own, so a server that fetched a
 * million stores kept a million (and copied the map at each new one). Past this many, the least recently used host
 * with nothing to remember (no request under way, its circuit closed with no failure counted, no rate-limit window
 * still running) is forgotten; a host with something to remember is never.
 */
export const hostsKept = 1000

/** How long after the unit's deadline the policy's own hard stops fire (ms). */
const grace = 250

/** The unit's deadline (epoch ms) seen by every request of it. */
const deadline = FiberRef.unsafeMake<number>(Number.POSITIVE_INFINITY)

/** `Retry-After` as seconds or an HTTP date, zero when absent. */
export const retryAfter = (value: string | undefined, now: number): Duration.Duration => {
  if (value === undefined) return Duration.zero
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Duration.millis(Math.max(0, seconds * 1000))
  const at = Date.parse(value)
  return Number.isNaN(at) ? Duration.zero : Duration.millis(Math.max(0, at - now))
}

/** The policy over the HttpClient in context. */
export const make = (settings: Settings) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    // least recently used first (a host used again moves to the end)
    const hosts = new Map<string, Host>()
    // issue 22: the circuits other instances opened, when the instances share them
    const shared = Option.getOrUndefined(yield* Effect.serviceOption(Circuits))

    const idle = (host: Host, now: number) =>
      host.active === 0 &&
      host.breaker.failures === 0 &&
      host.breaker.openUntil === null &&
      !host.breaker.probing &&
      (host.limit === null || host.limit.resetAt <= now)
    /** The host's state, with a request under way counted on it (until `done`). */
    const hostOf = (name: string, now: number): Host => {
      let host = hosts.get(name)
      if (host === undefined)
        host = {
          semaphore: Effect.unsafeMakeSemaphore(settings.perHost),
          breaker: { failures: 0, openUntil: null, probing: false },
          limit: null,
          active: 0
        }
      else hosts.delete(name)
      hosts.set(name, host)
      host.active++
      if (hosts.size > hostsKept)
        for (const [other, h] of hosts) {
          if (hosts.size <= hostsKept || h === host) break
          if (idle(h, now)) hosts.delete(other)
        }
      return host
    }

    /** The host's breaker changed in one step; what `f` returns besides. */
    const modify = <B>(host: Host, f: (b: Breaker) => readonly [B, Breaker]) =>
      Effect.sync(() => {
        const [out, next] = f(host.breaker)
        host.breaker = next
        return out
      })

    /** Lets the attempt through, or fails at once while the circuit is open (one probe after the pause). */
    const admit = (name: string, host: Host, now: number) =>
      modify(host, (b): [Either.Either<void, Failure>, Breaker] => {
        if (b.openUntil === null) {
          const elsewhere = shared?.openUntil(name)
          return elsewhere === undefined || now >= elsewhere
            ? [Either.void, b]
            : [
                Either.left(
                  new Failure({
                    reason: "open",
                    detail: `circuit open for ${name}: another instance found it failing; probing again in ${Math.ceil((elsewhere - now) / 1000)} s`,
                    retryInMs: elsewhere - now
                  })
                ),
                b
              ]
        }
        if (now < b.openUntil || b.probing)
          return [
            Either.left(
              new Failure({
                reason: "open",
                detail: `circuit open for ${name}: it failed ${b.failures} times in a row; probing again ${b.probing ? "now" : `in ${Math.ceil((b.openUntil - now) / 1000)} s`}`,
                retryInMs: b.probing ? 0 : b.openUntil - now
              })
            ),
            b
          ]
        return [Either.void, { ...b, probing: true }]
      }).pipe(Effect.flatten)

    const settle = (name: string, host: Host, ok: boolean, now: number) =>
      modify(host, (b): [number | null, Breaker] => {
        if (ok) return [null, { failures: 0, openUntil: null, probing: false }]
        const failures = b.failures + 1
        if (!(b.probing || failures >= settings.breakerFailures)) return [null, { ...b, failures }]
        const openUntil = now + Duration.toMillis(settings.breakerPause)
        return [openUntil, { failures, openUntil, probing: false }]
      }).pipe(
        // the other instances hear of a circuit this one opened
        Effect.flatMap((opened) =>
          opened === null || shared === undefined ? Effect.void : shared.opened(name, opened)
        ),
        // issue 25: the host's circuit state as a gauge
        Effect.zipRight(Effect.suspend(() => PolicyMetrics.circuitState(name, host.breaker.openUntil !== null)))
      )

    /** Waits before a request when the host's rate-limit headers say its window is (nearly) used up. */
    const pace = (host: Host, now: number, until: number) =>
      Effect.suspend(() => {
        const l = host.limit
        if (l === null || l.resetAt <= now || l.remaining >= 10) return Effect.void
        const wait = l.remaining < 1 ? l.resetAt - now : (l.resetAt - now) / l.remaining
        if (now + wait > until)
          return Effect.fail(
            new Failure({ reason: "timeout", detail: `the host's rate limit resets after this unit's time budget` })
          )
        return Effect.sleep(Duration.millis(wait))
      })

    const remember = (host: Host, headers: Readonly<Record<string, string | undefined>>, now: number) => {
      const remaining = Number(headers["x-ratelimit-remaining"])
      const reset = Number(headers["x-ratelimit-reset"])
      if (!Number.isFinite(remaining) || !Number.isFinite(reset)) return Effect.void
      return Effect.sync(() => {
        host.limit = { remaining, resetAt: now + reset * 1000 }
      })
    }

    const attempt = (request: HttpClientRequest.HttpClientRequest, name: string, host: Host) =>
      Effect.gen(function* () {
        const until = yield* FiberRef.get(deadline)
        const now = yield* Clock.currentTimeMillis
        if (now >= until) return yield* new Failure({ reason: "timeout", detail: "the unit's time budget ran out" })
        yield* admit(name, host, now).pipe(Effect.tapError(() => PolicyMetrics.attempt(name, "open", 0)))
        yield* pace(host, now, until)
        // the hard stop comes a little after the deadline: inside a call, the domain's own timeout of the same length
        // fires first and reports the unit `upstream_timeout`
        const left = Duration.millis(Math.max(1, until - (yield* Clock.currentTimeMillis)) + grace)
        const sent = yield* host.semaphore
          .withPermits(1)(
            Effect.flatMap(client.execute(request), (res) =>
              Effect.map(
                res.text,
                (body): Reply => ({ url: request.url, status: res.status, headers: res.headers, body })
              )
            ).pipe(Effect.scoped)
          )
          .pipe(
            Effect.timeoutFail({
              duration: left,
              onTimeout: () =>
                new Failure({ reason: "timeout", detail: `${name} gave no answer within the unit's time budget` })
            }),
            Effect.catchTag("RequestError", "ResponseError", (e) =>
              Effect.fail(new Retryable({ detail: `${name}: ${e.message}`, retryAfter: Duration.zero }))
            ),
            Effect.either
          )
        const after = yield* Clock.currentTimeMillis
        const seconds = (after - now) / 1000
        if (Either.isLeft(sent)) {
          yield* PolicyMetrics.attempt(name, sent.left._tag === "Failure" ? "timeout" : "transport", seconds)
          yield* settle(name, host, false, after)
          return yield* sent.left
        }
        const reply = sent.right
        yield* PolicyMetrics.attempt(
          name,
          reply.status === 429 ? "status_429" : reply.status >= 500 ? "status_5xx" : "ok",
          seconds
        )
        yield* remember(host, reply.headers, after)
        if (reply.status === 429 || reply.status >= 500) {
          yield* settle(name, host, reply.status === 429, after)
          return yield* new Retryable({
            detail: `${name} answered ${reply.status}`,
            retryAfter: retryAfter(reply.headers["retry-after"], after)
          })
        }
        yield* settle(name, host, true, after)
        return reply
      })

    const schedule = Schedule.intersect(
      Schedule.identity<Retryable | Failure>(),
      Schedule.exponential(settings.backoff).pipe(
        Schedule.jittered,
        Schedule.intersect(Schedule.recurs(settings.retries))
      )
    ).pipe(
      Schedule.modifyDelay(([e], delay) => (e._tag === "Retryable" ? Duration.max(delay, e.retryAfter) : delay)),
      Schedule.whileOutput(([e]) => e._tag === "Retryable"),
      // a retry whose wait would end past the unit's deadline is not made
      Schedule.checkEffect((e: Retryable | Failure, [, [delay]]) =>
        Effect.zipWith(FiberRef.get(deadline), Clock.currentTimeMillis, (until, now) => {
          const wait = Math.max(Duration.toMillis(delay), e._tag === "Retryable" ? Duration.toMillis(e.retryAfter) : 0)
          return now + wait < until
        })
      )
    )

    /** Sends one request under the policy; 429 and 5xx that outlast the retries fail. */
    const send = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<Reply, Failure> =>
      Effect.suspend(() => {
        const name = new URL(request.url).host
        // the host's request count taken and given back around the whole send (its retries and their waits included)
        return Effect.acquireUseRelease(
          Effect.map(Clock.currentTimeMillis, (now) => hostOf(name, now)),
          (host) => {
            let n = 0
            return Effect.suspend(() => {
              n++
              return Effect.zipRight(
                n > 1 ? PolicyMetrics.retry(name) : Effect.void,
                attempt(request, name, host).pipe(
                  Effect.withSpan("Upstream.attempt", { attributes: { "upstream.host": name, "upstream.attempt": n } })
                )
              )
            }).pipe(
              Effect.retry(schedule),
              Effect.catchTag("Retryable", (e) => Effect.fail(new Failure({ reason: "failed", detail: e.detail }))),
              Effect.tapError((f) => PolicyMetrics.failure(name, f.reason))
            )
          },
          (host) =>
            Effect.sync(() => {
              host.active--
            })
        )
      })

    /**
     * Runs one unit within its time budget (UPSTREAM_TIMEOUT_MS, or `budgetMs` for a run of a long call, issue 21);
     * every failure becomes `UpstreamFailed` of this source.
     */
    const unit = <A>(source: string, effect: Effect.Effect<A, Failure | U.UpstreamFailed>, budgetMs?: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const budget = budgetMs === undefined ? settings.unitBudget : Duration.millis(budgetMs)
        return effect.pipe(
          Effect.locally(deadline, now + Duration.toMillis(budget)),
          Effect.locally(PolicyMetrics.currentAdapter, source),
          Effect.timeoutFail({
            duration: Duration.sum(budget, Duration.millis(grace)),
            onTimeout: () => new Failure({ reason: "timeout", detail: `no answer within ${Duration.format(budget)}` })
          }),
          Effect.catchTag("Failure", (f) =>
            Effect.fail(
              new U.UpstreamFailed({
                source,
                detail: f.reason === "timeout" ? `timeout: ${f.detail}` : f.detail,
                ...(f.retryInMs === undefined ? {} : { retryInMs: f.retryInMs })
              })
            )
          )
        )
      })

    /** Sends a request in the background, outside any unit's budget (its own 5 s), its outcome ignored. */
    const detached = (request: HttpClientRequest.HttpClientRequest) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        send(request).pipe(Effect.locally(deadline, now + 5000), Effect.ignore, Effect.forkDaemon, Effect.asVoid)
      )

    /** Milliseconds left of the current unit's time budget (infinite outside a unit). */
    const timeLeft = Effect.zipWith(FiberRef.get(deadline), Clock.currentTimeMillis, (until, now) => until - now)

    return { send, unit, detached, settings, timeLeft, hostsKnown: () => hosts.size }
  })

/** The policy's service shape. */
export type Policy = Effect.Effect.Success<ReturnType<typeof make>>

/** Decodes a JSON reply with a Schema: wrong content type, malformed JSON and a wrong shape fail with a clear detail. */
export const json =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (reply: Reply): Effect.Effect<A, Failure> => {
    const type = reply.headers["content-type"] ?? ""
    if (!/\bjson\b/i.test(type))
      return Effect.fail(
        new Failure({
          reason: "malformed",
          detail: `${new URL(reply.url).host} answered ${type === "" ? "no content type" : `content type ${type.split(";")[0]}`}, not JSON`
        })
      )
    let parsed: unknown
    try {
      parsed = JSON.parse(reply.body)
    } catch (e) {
      return Effect.fail(
        new Failure({
          reason: "malformed",
          detail: `${new URL(reply.url).host} answered malformed JSON: ${(e as Error).message}`
        })
      )
    }
    return Schema.decodeUnknown(schema)(parsed).pipe(
      Effect.mapError(
        (e) =>
          new Failure({
            reason: "malformed",
            detail: `${new URL(reply.url).host} answered an unexpected shape: ${ParseResult.TreeFormatter.formatErrorSync(e).slice(0, 400)}`
          })
      )
    )
  }
