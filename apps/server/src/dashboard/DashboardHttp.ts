/**
 * The dashboard group's handlers (D20): pages rendered here from the domain services, form posts checked for a
 * session, its CSRF token and a same-origin request. An API key sent here gets the same 401 as any bad key, and a
 * session cookie opens nothing outside `/dashboard` (its path, and the op endpoints only read API keys).
 */
import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Accounts, Catalogue, Keys, Members, RateLimits, UsageReports } from "@pdr/domain"
import { Api } from "@pdr/http-api"
import { DateTime, Effect, Option } from "effect"
import * as ApiErrors from "../http/ApiErrors.js"
import * as Assets from "./Assets.js"
import type { Chrome, Section } from "./Html.js"
import * as Pages from "./Pages.js"

/** The session cookie's name (path `/dashboard`, HttpOnly, SameSite=Lax, Secure over TLS). */
export const cookieName = "pdr_session"

/** How the dashboard is served. */
export interface Options {
  /** Always mark the cookie Secure (behind a TLS proxy that does not send X-Forwarded-Proto). */
  readonly secureCookies: boolean
}

const securityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // same-origin, not no-referrer: with no-referrer a form post says `Origin: null` and would be refused
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}

const page = (body: string, status = 200) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: securityHeaders
  })

const seeOther = (location: string) =>
  HttpServerResponse.empty({ status: 303, headers: { ...securityHeaders, location } })

const ledgerPageSize = 50
const usageDays = 30

/** An `<input type="date">` value (the end of that UTC day) or an ISO instant; NaN when neither. */
const parseExpiry = (value: string | undefined) => {
  const v = value?.trim() ?? ""
  if (v === "") return undefined
  return /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T23:59:59Z`) : new Date(v)
}

/** The dashboard group's handlers. */
export const layer = (options: Options) =>
  HttpApiBuilder.group(Api.Api, "dashboard", (handlers) =>
    Effect.gen(function* () {
      const members = yield* Members.Members
      const keys = yield* Keys.Keys
      const accounts = yield* Accounts.Accounts
      const reports = yield* UsageReports.UsageReports
      const limits = yield* RateLimits.RateLimits
      const assets = Assets.load()

      const addressOf = (request: HttpServerRequest.HttpServerRequest) =>
        Option.getOrElse(request.remoteAddress, () => "unknown")
      const overTls = (request: HttpServerRequest.HttpServerRequest) =>
        options.secureCookies || request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() === "https"
      const originOf = (request: HttpServerRequest.HttpServerRequest) =>
        `${overTls(request) ? "https" : "http"}://${request.headers["host"] ?? "localhost"}`

      // an API key is never a dashboard credential: the very 401 (and failed-auth accounting) of a bad key on an op
      const refuseKeys = (request: HttpServerRequest.HttpServerRequest) =>
        Effect.gen(function* () {
          if (request.headers["x-api-key"] === undefined && request.headers["authorization"] === undefined) return
          const address = addressOf(request)
          const gate = yield* limits.failedAuth.peek(address)
          if (!gate.allowed) {
            return yield* ApiErrors.fail(
              "rate_limited",
              "too many failed authentications from this address; retry after Retry-After seconds"
            )
          }
          yield* limits.failedAuth.take(address)
          return yield* ApiErrors.fail("unauthorized", new Keys.Unauthorized().message)
        })

      // cross-site forgery: a browser says where a request comes from; anything but our own origin is refused
      const refuseCrossSite = (request: HttpServerRequest.HttpServerRequest) => {
        const site = request.headers["sec-fetch-site"]
        const origin = request.headers["origin"]
        const crossSite =
          (site !== undefined && site !== "same-origin" && site !== "none") ||
          (origin !== undefined && origin !== originOf(request))
        return crossSite ? ApiErrors.fail("forbidden", "cross-site request refused") : Effect.void
      }

      const session = (request: HttpServerRequest.HttpServerRequest) =>
        Effect.option(members.authenticate(request.cookies[cookieName]))

      const chromeOf = (s: Members.SignedIn, section: Section): Chrome => ({
        section,
        email: s.member.email,
        role: s.member.role,
        csrf: s.csrf
      })

      type Out = string | HttpServerResponse.HttpServerResponse
      const render = (out: Out) => (typeof out === "string" ? page(out) : out)

      /** A signed-in page; without a session, the sign-in page. */
      const signedInPage = <E>(
        request: HttpServerRequest.HttpServerRequest,
        section: Section,
        f: (s: Members.SignedIn, chrome: Chrome) => Effect.Effect<Out, E>
      ) =>
        Effect.gen(function* () {
          yield* refuseKeys(request)
          const s = yield* session(request)
          if (Option.isNone(s)) return seeOther("/dashboard/sign-in")
          return render(yield* f(s.value, chromeOf(s.value, section)))
        })

      /** A state-changing form post: same origin, a session, and its CSRF token. */
      const signedInPost = <E>(
        request: HttpServerRequest.HttpServerRequest,
        csrf: string,
        section: Section,
        f: (s: Members.SignedIn, chrome: Chrome) => Effect.Effect<Out, E>
      ) =>
        Effect.gen(function* () {
          yield* refuseKeys(request)
          yield* refuseCrossSite(request)
          const s = yield* session(request)
          if (Option.isNone(s)) return seeOther("/dashboard/sign-in")
          if (csrf !== s.value.csrf) return yield* ApiErrors.fail("forbidden", "cross-site request refused")
          return render(yield* f(s.value, chromeOf(s.value, section)))
        })

      const refusal =
        (chrome: Chrome) => (e: Keys.InvalidInput | Members.Forbidden | Members.MemberNotFound | Keys.KeyNotFound) => {
          switch (e._tag) {
            case "InvalidInput":
              return Effect.succeed(page(Pages.message("Not done", "error", `${e.field}: ${e.message}`, chrome), 400))
            case "Forbidden":
              return Effect.succeed(page(Pages.message("Not allowed", "error", e.message, chrome), 403))
            case "MemberNotFound":
              return Effect.succeed(
                page(Pages.message("Not found", "error", "No such member in this account.", chrome), 404)
              )
            case "KeyNotFound":
              return Effect.succeed(
                page(Pages.message("Not found", "error", "No such key in this account.", chrome), 404)
              )
          }
        }

      const usageOf = (accountId: string) =>
        Effect.gen(function* () {
          yield* keys.flushUsage()
          const now = yield* DateTime.now
          const since = DateTime.formatIso(DateTime.subtract(now, { days: usageDays - 1 })).slice(0, 10)
          const rows = yield* reports.usage(accountId, since)
          const list = yield* Effect.orDie(keys.list(accountId))
          return { now, rows, names: new Map(list.map((k) => [k.id, k.name] as const)) }
        })

      const keysPage = (s: Members.SignedIn, chrome: Chrome, extra?: Parameters<typeof Pages.keys>[3]) =>
        Effect.gen(function* () {
          const list = yield* Effect.orDie(keys.list(s.member.accountId))
          return Pages.keys(chrome, list, yield* DateTime.now, extra)
        })

      const membersPage = (s: Members.SignedIn, chrome: Chrome, extra?: Parameters<typeof Pages.members>[3]) =>
        Effect.map(members.list(s.member.accountId), (list) => Pages.members(chrome, list, s.member.id, extra))

      return handlers
        .handleRaw("overview", ({ request }) =>
          signedInPage(request, "overview", (s, chrome) =>
            Effect.gen(function* () {
              const account = yield* Effect.orDie(accounts.find(s.member.accountId))
              const usage = yield* usageOf(s.member.accountId)
              return Pages.overview(chrome, account, usage.rows, usage.now)
            })
          )
        )
        .handleRaw("signInPage", ({ request }) =>
          Effect.zipRight(
            refuseKeys(request),
            Effect.map(session(request), (s) => (Option.isSome(s) ? seeOther("/dashboard") : page(Pages.signIn())))
          )
        )
        .handle("signIn", ({ payload, request }) =>
          Effect.gen(function* () {
            yield* refuseKeys(request)
            yield* refuseCrossSite(request)
            return yield* members
              .signIn({ email: payload.email, password: payload.password, address: addressOf(request) })
              .pipe(
                Effect.map(({ token }) =>
                  HttpServerResponse.unsafeSetCookie(seeOther("/dashboard"), cookieName, token, {
                    httpOnly: true,
                    sameSite: "lax",
                    secure: overTls(request),
                    path: "/dashboard"
                  })
                ),
                Effect.catchTags({
                  SignInRefused: (e) => Effect.succeed(page(Pages.signIn(e.message), 401)),
                  SignInLimited: (e) =>
                    Effect.succeed(
                      HttpServerResponse.setHeader(
                        page(Pages.signIn(e.message), 429),
                        "retry-after",
                        String(e.retryAfterSeconds)
                      )
                    )
                })
              )
          })
        )
        .handle("signOut", ({ payload, request }) =>
          signedInPost(request, payload.csrf, "overview", () =>
            Effect.gen(function* () {
              const token = request.cookies[cookieName]
              if (token !== undefined) yield* members.signOut(token)
              return HttpServerResponse.unsafeSetCookie(seeOther("/dashboard/sign-in"), cookieName, "", {
                httpOnly: true,
                sameSite: "lax",
                secure: overTls(request),
                path: "/dashboard",
                maxAge: 0
              })
            })
          )
        )
        .handle("signUpPage", ({ urlParams, request }) =>
          Effect.zipRight(refuseKeys(request), Effect.succeed(page(Pages.signUp(urlParams.token ?? ""))))
        )
        .handle("signUp", ({ payload, request }) =>
          Effect.gen(function* () {
            yield* refuseKeys(request)
            yield* refuseCrossSite(request)
            return yield* members.accept(payload.token, payload.password).pipe(
              Effect.as(seeOther("/dashboard/sign-in")),
              Effect.catchTags({
                InvitationInvalid: (e) => Effect.succeed(page(Pages.message("Sign-up link", "error", e.message), 400)),
                InvalidInput: (e) => Effect.succeed(page(Pages.signUp(payload.token, `${e.field}: ${e.message}`), 400))
              })
            )
          })
        )
        .handleRaw("keys", ({ request }) => signedInPage(request, "keys", (s, chrome) => keysPage(s, chrome)))
        .handle("createKey", ({ payload, request }) =>
          signedInPost(request, payload.csrf, "keys", (s, chrome) =>
            keys
              .create({ accountId: s.member.accountId, name: payload.name, expiresAt: parseExpiry(payload.expires) })
              .pipe(
                Effect.flatMap((created) =>
                  keysPage(s, chrome, { created: { name: created.stored.name, key: created.key } })
                ),
                Effect.catchTags({
                  InvalidInput: (e) =>
                    Effect.map(keysPage(s, chrome, { error: `${e.field}: ${e.message}` }), (html) => page(html, 400)),
                  AccountNotFound: (e) => Effect.die(e)
                })
              )
          )
        )
        .handle("revokeKeyPage", ({ path, request }) =>
          signedInPage(request, "keys", (s, chrome) =>
            Effect.gen(function* () {
              const list = yield* Effect.orDie(keys.list(s.member.accountId))
              const key = list.find((k) => k.id === path.keyId)
              return key === undefined
                ? page(Pages.message("Not found", "error", "No such key in this account.", chrome), 404)
                : Pages.confirmRevoke(chrome, key)
            })
          )
        )
        .handle("revokeKey", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "keys", (s, chrome) =>
            keys
              .revoke(path.keyId, s.member.accountId)
              .pipe(Effect.as(seeOther("/dashboard/keys")), Effect.catchAll(refusal(chrome)))
          )
        )
        .handleRaw("usage", ({ request }) =>
          signedInPage(request, "usage", (s, chrome) =>
            Effect.map(usageOf(s.member.accountId), (u) => Pages.usage(chrome, u.rows, u.names))
          )
        )
        .handleRaw("usageCsv", ({ request }) =>
          signedInPage(request, "usage", (s) =>
            Effect.map(usageOf(s.member.accountId), (u) =>
              HttpServerResponse.text(Pages.usageCsv(u.rows, u.names), {
                contentType: "text/csv; charset=utf-8",
                headers: {
                  ...securityHeaders,
                  "content-disposition": `attachment; filename="usage-${DateTime.formatIso(u.now).slice(0, 10)}.csv"`
                }
              })
            )
          )
        )
        .handle("ledger", ({ urlParams, request }) =>
          signedInPage(request, "ledger", (s, chrome) => {
            const before = urlParams.before === undefined ? undefined : Number.parseInt(urlParams.before, 10)
            return Effect.map(
              reports.ledgerPage(
                s.member.accountId,
                before !== undefined && Number.isSafeInteger(before) ? before : undefined,
                ledgerPageSize
              ),
              (entries) => Pages.ledger(chrome, entries, ledgerPageSize)
            )
          })
        )
        .handleRaw("members", ({ request }) => signedInPage(request, "members", (s, chrome) => membersPage(s, chrome)))
        .handle("inviteMember", ({ payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members.inviteAs(s.member, payload.email, payload.role === "owner" ? "owner" : "member").pipe(
              Effect.flatMap((invited) =>
                membersPage(s, chrome, {
                  invited: {
                    email: invited.email,
                    link: `${originOf(request)}/dashboard/sign-up?token=${invited.token}`
                  }
                })
              ),
              Effect.catchAll((e) => (e._tag === "AccountNotFound" ? Effect.die(e) : refusal(chrome)(e)))
            )
          )
        )
        .handle("changeRole", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members
              .changeRole(s.member, path.memberId, payload.role === "owner" ? "owner" : "member")
              .pipe(Effect.as(seeOther("/dashboard/members")), Effect.catchAll(refusal(chrome)))
          )
        )
        .handle("removeMember", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members
              .remove(s.member, path.memberId)
              .pipe(Effect.as(seeOther("/dashboard/members")), Effect.catchAll(refusal(chrome)))
          )
        )
        .handle("changePassword", ({ payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members.changePassword(s.member.id, payload.current, payload.next).pipe(
              // every session of the member ended with the change, this one included
              Effect.as(seeOther("/dashboard/sign-in")),
              Effect.catchTags({
                SignInRefused: () =>
                  Effect.map(membersPage(s, chrome, { error: "The current password is wrong." }), (html) =>
                    page(html, 400)
                  ),
                InvalidInput: (e) =>
                  Effect.map(membersPage(s, chrome, { error: `${e.field}: ${e.message}` }), (html) => page(html, 400)),
                MemberNotFound: () => Effect.succeed(seeOther("/dashboard/sign-in"))
              })
            )
          )
        )
        .handleRaw("catalogue", ({ request }) =>
          signedInPage(request, "catalogue", (_, chrome) =>
            Effect.succeed(Pages.catalogue(chrome, Catalogue.publish()))
          )
        )
        .handle("asset", ({ path }) => {
          const asset = assets.get(path.file)
          return asset === undefined
            ? ApiErrors.fail("not_found", "no such asset")
            : Effect.succeed(
                HttpServerResponse.text(asset.body, {
                  contentType: asset.type,
                  headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
                })
              )
        })
    })
  )
