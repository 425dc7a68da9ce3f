/**
 * Native storefront adapter (`storefronts products`): a hosted storefront's public `/products.json`, paged with
 * `limit` (at most 250) and `page`, mapped to the products row and the store's history point.
 */
import { HttpClientRequest } from "@effect/platform"
import { type Measurements as M, Setting, Upstream as U } from "@pdr/domain"
import { Config, Effect, Schema } from "effect"
import * as Delivered from "./Delivered.js"
import * as Policy from "./Policy.js"

/** The name this adapter reports as `source`. */
export const source = "storefront"

/** Origins served from another base URL (tests and fixtures point a store's origin at loopback). */
export interface Settings {
  readonly origins: Readonly<Record<string, string>>
  /** Products per page asked for (`limit`, at most 250). */
  readonly pageSize: number
}

/** `a=b,c=d` as a record. */
export const pairs = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== "")
      .map((p) => {
        const at = p.indexOf("=")
        return [
          p.slice(0, at).trim().replace(/\/+$/, ""),
          p
            .slice(at + 1)
            .trim()
            .replace(/\/+$/, "")
        ]
      })
  )

const maxPage = 250

/** STOREFRONT_ORIGINS (`https://shop.example=http://127.0.0.1:4001/shop,...`; default none) and STOREFRONT_PAGE_SIZE (250). */
export const settingsConfig: Config.Config<Settings> = Config.all({
  origins: Config.string("STOREFRONT_ORIGINS").pipe(Config.withDefault(""), Config.map(pairs)),
  pageSize: Setting.integer("STOREFRONT_PAGE_SIZE", maxPage, { least: 1, most: maxPage })
})

const Money = Schema.Union(Schema.NumberFromString, Schema.Number)

const Variant = Schema.Struct({
  id: Schema.Union(Schema.Number, Schema.String),
  title: Schema.String,
  price: Money,
  compare_at_price: Schema.optionalWith(Schema.NullOr(Money), { default: () => null }),
  available: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  sku: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})

const Product = Schema.Struct({
  id: Schema.Union(Schema.Number, Schema.String),
  title: Schema.String,
  handle: Schema.String,
  vendor: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  product_type: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  updated_at: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  variants: Schema.Array(Variant),
  images: Schema.optionalWith(Schema.Array(Schema.Struct({ src: Schema.String })), { default: () => [] })
})

/** The public products.json page. */
export const ProductsPage = Schema.Struct({ products: Schema.Array(Product) })

const iso = (s: string | null) => {
  if (s === null) return null
  const t = Date.parse(s)
  return Number.isNaN(t) ? null : new Date(t).toISOString()
}

const orNull = (s: string | null) => (s === null || s.trim() === "" ? null : s)

/** One products row (rows.md) of a product at a position. */
export const toRow = (origin: string, p: typeof Product.Type, position: number): M.Row => {
  const prices = p.variants.map((v) => v.price)
  const compares = p.variants.flatMap((v) =>
    v.compare_at_price === null || v.compare_at_price <= 0 ? [] : [v.compare_at_price]
  )
  return {
    position,
    productId: String(p.id),
    title: p.title,
    handle: p.handle,
    vendor: orNull(p.vendor),
    productType: orNull(p.product_type),
    url: `${origin}/products/${p.handle}`,
    priceFrom: prices.length ? Math.min(...prices) : 0,
    priceTo: prices.length ? Math.max(...prices) : 0,
    compareAtPrice: compares.length ? Math.max(...compares) : null,
    currency: null,
    inStock: p.variants.some((v) => v.available),
    variantCount: p.variants.length,
    variants: p.variants.map((v) => ({
      variantId: String(v.id),
      title: v.title,
      price: v.price,
      compareAtPrice: v.compare_at_price === null || v.compare_at_price <= 0 ? null : v.compare_at_price,
      available: v.available,
      sku: orNull(v.sku)
    })),
    images: p.images.map((i) => (i.src.startsWith("//") ? `https:${i.src}` : i.src)),
    updatedAt: iso(p.updated_at)
  }
}

/** The adapter over a policy. */
export const make = (policy: Policy.Policy, settings: Settings): U.Adapter => {
  const decode = Policy.json(ProductsPage)
  // `https://*.shop.example=http://127.0.0.1:4101/*`: one label of the host stands for `*` in the base
  const wildcards = Object.entries(settings.origins)
    .filter(([from]) => from.includes("*"))
    .map(([from, to]) => ({
      pattern: new RegExp(
        `^${from
          .split("*")
          .map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
          .join("([^./]+)")}$`
      ),
      to
    }))
  const baseOf = (origin: string) => {
    const exact = settings.origins[origin]
    if (exact !== undefined) return exact
    for (const w of wildcards) {
      const m = w.pattern.exec(origin)
      if (m) return w.to.replace("*", m[1] ?? "")
    }
    return origin
  }
  const fetch = (unit: U.UnitRequest) =>
    Effect.gen(function* () {
      const origin = (unit.subject ?? "").replace(/\/+$/, "")
      if (!/^https?:\/\/[^/]+$/.test(origin))
        return { _tag: "InvalidSubject", source, detail: `${unit.subject} is not a store origin` } as const
      const base = baseOf(origin)
      const per = Math.min(settings.pageSize, Math.max(1, unit.rows))
      const rows: Array<M.Row> = []
      const seen = new Set<string>()
      let exhaustive = false
      for (let page = 1; rows.length < unit.rows; page++) {
        const reply = yield* policy.send(
          HttpClientRequest.get(`${base}/products.json`, {
            urlParams: { limit: String(per), page: String(page) },
            headers: { accept: "application/json" }
          })
        )
        if (reply.status === 404 || reply.status === 410)
          return { _tag: "NotFound", source, detail: `${origin} serves no /products.json (${reply.status})` } as const
        if (reply.status === 401 || reply.status === 403)
          return {
            _tag: "NotFound",
            source,
            detail: `${origin} refuses its products (${reply.status}: password or bot wall)`
          } as const
        if (reply.status >= 300)
          return yield* new Policy.Failure({
            reason: "failed",
            detail: `${origin}/products.json answered ${reply.status}`
          })
        if (!/\bjson\b/i.test(reply.headers["content-type"] ?? ""))
          return {
            _tag: "InvalidSubject",
            source,
            detail: `${origin} is not a hosted storefront: /products.json answered ${(reply.headers["content-type"] ?? "no content type").split(";")[0]}`
          } as const
        const body = yield* decode(reply)
        // a page whose ids repeat an earlier page (a store that ignores `page`, or serves its last page again) ends
        // the paging: its duplicates are never delivered nor billed, and what was delivered is not said to be all
        let repeated = false
        for (const p of body.products) {
          const id = String(p.id)
          if (seen.has(id)) {
            repeated = true
            continue
          }
          seen.add(id)
          if (rows.length >= unit.rows) break
          rows.push(toRow(origin, p, rows.length + 1))
        }
        if (repeated) break
        if (body.products.length < per) {
          exhaustive = rows.length < unit.rows
          break
        }
      }
      yield* Delivered.check(unit, rows)
      const point = Delivered.point(unit.platform, origin, rows)
      return { _tag: "Delivered", rows, exhaustive, points: point ? [point] : [], source } as const
    }).pipe((e) => policy.unit(source, e))
  return { name: source, fetch }
}
