// In-memory fakes of the domain's ports, for domain tests. The Postgres adapters are tested against real servers.

import { createHash, randomBytes } from "node:crypto"
import { DateTime, Effect, Layer, Option } from "effect"
import { Answers, CommonPasswords, Crypto, Freshness, KeySpend, Ledger, Measurements, Upstream } from "../src/index.js"

export const crypto = Layer.succeed(Crypto.Crypto, {
  randomBytes: (n) => Effect.sync(() => new Uint8Array(randomBytes(n))),
  sha256: (t) => Effect.sync(() => createHash("sha256").update(t).digest("hex"))
})

/** A short common-password list. */
export const commonPasswords = Layer.succeed(CommonPasswords.CommonPasswords, {
  includes: (p) => Effect.succeed(["password123", "qwertyuiop", "1234567890"].includes(p.toLowerCase()))
})

export const memoryStore = () => {
  const accounts = new Map<string, { id: string; name: string; balance: number; held: number }>()
  const holds = new Map<
    string,
    {
      id: string
      accountId: string
      keyId: string | null
      amount: number
      status: string
      captured: number
      expiresAt: Date
      /** what the draws of a shared hold are for (its ledger entry's reason when it is closed) */
      reason?: string
    }
  >()
  const entries: Array<{
    accountId: string
    kind: "grant" | "capture"
    credits: number
    reason: string
    keyId: string | null
  }> = []
  const measurements: Array<Measurements.Measurement> = []
  const points: Array<Measurements.HistoryPoint> = []
  const reveals: Array<Measurements.Reveal> = []
  const toAccount = (a: { id: string; name: string; balance: number; held: number }) =>
    new Ledger.Account({ ...a, createdAt: DateTime.unsafeMake(0) })
  const toHold = (h: typeof holds extends Map<string, infer H> ? H : never) =>
    new Ledger.Hold({ ...h, status: h.status as never, expiresAt: DateTime.unsafeMake(h.expiresAt) })
  /** Ends a held hold: what draws took from it is captured (one entry), the rest released (issue 19). */
  const release = (id: string, status: string): Option.Option<Ledger.Closed> => {
    const h = holds.get(id)
    if (h?.status !== "held") return Option.none()
    const a = accounts.get(h.accountId)!
    h.status = h.captured > 0 && status === "released" ? "captured" : status
    a.held -= h.amount
    a.balance -= h.captured
    if (h.captured > 0)
      entries.push({
        accountId: h.accountId,
        kind: "capture",
        credits: -h.captured,
        reason: h.reason ?? "",
        keyId: h.keyId
      })
    return Option.some({ captured: h.captured, released: h.amount - h.captured })
  }
  const ledger = Ledger.Ledger.of({
    createAccount: ({ id, name }) =>
      Effect.sync(() => {
        accounts.set(id, { id, name, balance: 0, held: 0 })
        return toAccount(accounts.get(id)!)
      }),
    findAccount: (id) => Effect.sync(() => Option.map(Option.fromNullable(accounts.get(id)), toAccount)),
    listAccounts: () => Effect.sync(() => [...accounts.values()].map(toAccount)),
    grant: ({ accountId, credits, reason }) =>
      Effect.suspend(() => {
        const a = accounts.get(accountId)
        if (!a) return Effect.fail(new Ledger.AccountNotFound({ accountId }))
        a.balance += credits
        entries.push({ accountId, kind: "grant", credits, reason, keyId: null })
        return Effect.succeed(toAccount(a))
      }),
    placeHold: ({ id, accountId, keyId, amount, expiresAt }) =>
      Effect.suspend(() => {
        const a = accounts.get(accountId)!
        if (a.balance - a.held < amount)
          return Effect.fail(new Ledger.HoldRefused({ required: amount, available: a.balance - a.held }))
        a.held += amount
        holds.set(id, { id, accountId, keyId, amount, status: "held", captured: 0, expiresAt })
        return Effect.succeed(toHold(holds.get(id)!))
      }),
    settle: ({ holdId, accountId, capture, reason, records, draw }) =>
      Effect.suspend(() => {
        const fresh = records.reveals.filter(
          (r) => !reveals.some((x) => x.accountId === r.accountId && x.person === r.person && x.part === r.part)
        )
        const captured = holdId === null ? 0 : capture + fresh.reduce((n, r) => n + (r.credits ?? 0), 0)
        if (holdId !== null && draw === true) {
          // a shared hold: the capture is drawn from what is left of it, captured in the ledger when it is closed
          const h = holds.get(holdId)
          if (h?.status !== "held" || h.captured + captured > h.amount)
            return Effect.fail(new Ledger.HoldNotHeld({ holdId }))
          h.captured += captured
          h.reason = reason
        } else if (holdId !== null) {
          const h = holds.get(holdId)
          if (h?.status !== "held" || captured > h.amount) return Effect.fail(new Ledger.HoldNotHeld({ holdId }))
          const a = accounts.get(h.accountId)!
          h.status = "captured"
          h.captured = captured
          a.held -= h.amount
          a.balance -= captured
          if (captured > 0)
            entries.push({ accountId: h.accountId, kind: "capture", credits: -captured, reason, keyId: h.keyId })
        }
        measurements.push(...records.measurements)
        points.push(...records.points)
        reveals.push(...fresh)
        return Effect.succeed({ account: toAccount(accounts.get(accountId)!), captured })
      }),
    release: (id) => Effect.sync(() => void release(id, "released")),
    close: (id) => Effect.sync(() => release(id, "released")),
    extend: (id, expiresAt) =>
      Effect.sync(() => {
        const h = holds.get(id)
        if (h === undefined || h.status !== "held") return false
        if (h.expiresAt < expiresAt) h.expiresAt = expiresAt
        return true
      }),
    releaseExpired: (now) =>
      Effect.sync(
        () =>
          [...holds.values()].filter(
            (h) => h.status === "held" && h.expiresAt <= now && Option.isSome(release(h.id, "expired"))
          ).length
      ),
    holds: (accountId) =>
      Effect.sync(() =>
        [...holds.values()].filter((h) => h.accountId === accountId && h.status === "held").map(toHold)
      ),
    entries: () => Effect.succeed([]),
    totals: (accountId) =>
      Effect.sync(() => ({
        grants: entries
          .filter((e) => e.accountId === accountId && e.kind === "grant")
          .reduce((n, e) => n + e.credits, 0),
        captures: -entries
          .filter((e) => e.accountId === accountId && e.kind === "capture")
          .reduce((n, e) => n + e.credits, 0)
      }))
  })
  const reads = Measurements.Measurements.of({
    fresh: (ask) => Effect.sync(() => Freshness.freshest(measurements, ask)),
    history: ({ platform, entities, metric, store, since }) =>
      Effect.sync(() => {
        const series = new Map<string, { entity: string; source: string; points: Array<Measurements.SeriesPoint> }>()
        const matching = points
          .filter(
            (p) =>
              p.platform === platform &&
              entities.includes(p.entity) &&
              p.measuredAt > since &&
              (store === null || p.store === store) &&
              typeof p.metrics[metric] === "number"
          )
          .sort((x, y) => x.measuredAt.getTime() - y.measuredAt.getTime())
        for (const p of matching) {
          const key = `${p.entity}|${p.source}`
          const s = series.get(key) ?? { entity: p.entity, source: p.source, points: [] }
          s.points.push({
            measuredAt: p.measuredAt.toISOString(),
            value: p.metrics[metric]!,
            ...(p.stay ? { stay: p.stay } : {}),
            ...(p.store ? { store: p.store } : {})
          })
          series.set(key, s)
        }
        return [...series.values()].map((s) => ({
          entity: s.entity,
          source: s.source,
          count: s.points.length,
          latest: s.points[s.points.length - 1]!.measuredAt,
          points: Answers.JsonText.of(s.points)
        }))
      }),
    reveals: ({ accountId, persons }) =>
      Effect.sync(() => reveals.filter((r) => r.accountId === accountId && persons.includes(r.person)))
  })
  // entries carry no time: every capture counts as this month's (the domain picks the month)
  const spend = KeySpend.KeySpend.of({
    spentSince: (keyId) =>
      Effect.sync(
        () =>
          entries.filter((e) => e.keyId === keyId && e.kind === "capture").reduce((s, e) => s - e.credits, 0) +
          [...holds.values()].filter((h) => h.keyId === keyId && h.status === "held").reduce((s, h) => s + h.amount, 0)
      )
  })
  return { ledger, reads, spend, state: { accounts, holds, entries, measurements, points, reveals } }
}

/** How the scripted upstream answers a unit. */
export type Script = (
  unit: Upstream.UnitRequest,
  index: number
) =>
  | { readonly kind: "deliver"; readonly rows: number; readonly exhaustive?: boolean }
  | { readonly kind: "notFound" }
  | { readonly kind: "fail" }

export const scriptedUpstream = (script: { current: Script }) => {
  let index = 0
  return Upstream.single({
    name: "scripted",
    fetch: (unit) =>
      Effect.suspend((): Effect.Effect<Upstream.UnitOutcome, Upstream.UpstreamFailed> => {
        const answer = script.current(unit, index++)
        if (answer.kind === "fail")
          return Effect.fail(new Upstream.UpstreamFailed({ source: "scripted", detail: "scripted failure" }))
        if (answer.kind === "notFound")
          return Effect.succeed({ _tag: "NotFound" as const, source: "scripted", detail: "scripted not found" })
        const delay = (answer as { readonly delayMs?: number }).delayMs ?? 0
        const perPage = unit.platform === "web_search" && unit.op === "search"
        const rows = Array.from({ length: answer.rows }, (_, i) =>
          unit.platform === "contacts"
            ? Object.fromEntries(
                (unit.parts ?? []).map((p, j) => [
                  p,
                  (i + j + answer.rows) % 3 === 0 ? null : `${p}-of-${unit.subject}`
                ])
              )
            : { n: i, ...(perPage ? { page: i + 1 } : {}) }
        )
        return Effect.as(Effect.sleep(delay), {
          _tag: "Delivered" as const,
          rows,
          exhaustive: answer.exhaustive ?? false,
          points: unit.subject ? [{ subject: unit.subject, metrics: { followers: answer.rows, rating: 4 } }] : [],
          source: "scripted"
        })
      }),
    resolveStore: (_p, _o, locator) => Effect.succeed(Option.some(`store:${JSON.stringify(locator)}`)),
    exploreSources: () => Effect.succeed([{ name: "known", price: { credits: 3, rows: 10 } }]),
    exploreSource: (name) =>
      Effect.succeed(name === "known" ? Option.some({ name, price: { credits: 3, rows: 10 } }) : Option.none())
  })
}
