/**
 * The dashboard group's handlers (D20, issue 24): pages rendered here from the domain services, form posts checked
 * for a session, its CSRF token and a same-origin request. Every successful form post redirects (post/redirect/get);
 * what must be shown once after it (a new key, a link to copy) waits in a one-time ticket bound to the session. A
 * form refused for a field is shown again with the message beside the field and the other values kept. An API key
 * sent here gets the same 401 as any bad key, and a session cookie opens nothing outside `/dashboard`.
 */
import { randomBytes } from "node:crypto"
import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Accounts, Audit, Keys, LowBalance, Mailer, Members, RateLimits, UsageReports } from "@pdr/domain"
import { Api } from "@pdr/http-api"
import { DateTime, Effect, Option } from "effect"
import * as ApiErrors from "../http/ApiErrors.js"
import * as Assets from "./Assets.js"
import type { Chrome, FormState, Section } from "./Html.js"
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

/** The HTML answer of an error under /dashboard (used by the API-level middleware for the framework's errors). */
export const errorResponse = (status: number) => page(Pages.errorPage(status), status)

const seeOther = (location: string) =>
  HttpServerResponse.empty({ status: 303, headers: { ...securityHeaders, location } })

const ledgerPageSize = 50
const auditPageSize = 50
const usageDays = 30
/** How long a one-time ticket (a new key, a link to copy) waits for its page. */
const ticketTtlMs = 10 * 60_000

/** An `<input type="date">` value (the end of that UTC day) or an ISO instant; NaN when neither. */
const parseExpiry = (value: string | undefined) => {
  const v = value?.trim() ?? ""
  if (v === "") return undefined
  return /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T23:59:59Z`) : new Date(v)
}

/** An optional whole number field: none when empty, NaN when not a whole number (the domain refuses it by name). */
const parseWhole = (value: string | undefined): Option.Option<number> => {
  const v = value?.trim() ?? ""
  if (v === "") return Option.none()
  return Option.some(/^\d{1,15}$/.test(v) ? Number(v) : Number.NaN)
}

const fieldError = (e: Keys.InvalidInput, values: Record<string, string | undefined>): FormState => ({
  values: Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined)),
  errors: { [e.field]: e.message }
})

type Ticket =
  | { readonly _tag: "key"; readonly name: string; readonly key: string; readonly rolled?: string }
  | { readonly _tag: "link"; readonly notice: Pages.LinkNotice }

/** The dashboard group's handlers. */
export const layer = (options: Options) =>
  HttpApiBuilder.group(Api.Api, "dashboard", (handlers) =>
    Effect.gen(function* () {
      const members = yield* Members.Members
      const keys = yield* Keys.Keys
      const accounts = yield* Accounts.Accounts
      const reports = yield* UsageReports.UsageReports
      const limits = yield* RateLimits.RateLimits
      const audit = yield* Audit.Audit
      const lowBalance = yield* LowBalance.LowBalance
      const mailer = yield* Mailer.Mailer
      const assets = Assets.load()
      // one-time tickets, in this process's memory only (a secret never reaches the store)
      const tickets = new Map<
        string,
        { readonly session: string; readonly expiresAt: number; readonly value: Ticket }
      >()

      const addressOf = (request: HttpServerRequest.HttpServerRequest) =>
        Option.getOrElse(request.remoteAddress, () => "unknown")
      const overTls = (request: HttpServerRequest.HttpServerRequest) =>
        options.secureCookies || request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() === "https"
      const originOf = (request: HttpServerRequest.HttpServerRequest) =>
        `${overTls(request) ? "https" : "http"}://${request.headers["host"] ?? "localhost"}`

      const issueTicket = (session: string, value: Ticket) =>
        Effect.sync(() => {
          const now = Date.now()
          for (const [id, t] of tickets) if (t.expiresAt <= now) tickets.delete(id)
          const id = randomBytes(18).toString("base64url")
          tickets.set(id, { session, expiresAt: now + ticketTtlMs, value })
          return id
        })
      /** The ticket's value, once, for the session it was issued to. */
      const takeTicket = (session: string, id: string | undefined) =>
        Effect.sync(() => {
          if (id === undefined) return undefined
          const t = tickets.get(id)
          if (t === undefined || t.session !== session || t.expiresAt <= Date.now()) return undefined
          tickets.delete(id)
          return t.value
        })

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
      const crossSite = (request: HttpServerRequest.HttpServerRequest) => {
        const site = request.headers["sec-fetch-site"]
        const origin = request.headers["origin"]
        return (
          (site !== undefined && site !== "same-origin" && site !== "none") ||
          (origin !== undefined && origin !== originOf(request))
        )
      }
      const crossSitePage = () =>
        page(
          Pages.message(
            "Request refused",
            "error",
            "This form was sent from another site, so it was refused and nothing was changed. Open the dashboard and use its own forms."
          ),
          403
        )

      const session = (request: HttpServerRequest.HttpServerRequest) =>
        Effect.option(members.authenticate(request.cookies[cookieName]))

      /** Where a request without a valid session goes: sign-in, saying the session ended when a cookie was sent. */
      const toSignIn = (request: HttpServerRequest.HttpServerRequest) =>
        seeOther(request.cookies[cookieName] ? "/dashboard/sign-in?reason=expired" : "/dashboard/sign-in")

      const chromeOf = (s: Members.SignedIn, section: Section) =>
        Effect.gen(function* () {
          const account = yield* Effect.orDie(accounts.find(s.member.accountId))
          const low = yield* lowBalance.below(s.member.accountId, account.spendable)
          return {
            section,
            email: s.member.email,
            role: s.member.role,
            csrf: s.csrf,
            banner: Option.match(low, {
              onNone: () => undefined,
              onSome: (t) => `Low balance: ${account.spendable} spendable credits, below your warning level of ${t}.`
            })
          } satisfies Chrome
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
          if (Option.isNone(s)) return toSignIn(request)
          return render(yield* f(s.value, yield* chromeOf(s.value, section)))
        })

      const sectionHref: Record<Section, string> = {
        overview: "/dashboard",
        keys: "/dashboard/keys",
        usage: "/dashboard/usage",
        ledger: "/dashboard/ledger",
        members: "/dashboard/members",
        audit: "/dashboard/audit",
        catalogue: "/dashboard/catalogue"
      }

      /** A state-changing form post: same origin, a session, and its CSRF token (a stale form gets a page saying so). */
      const signedInPost = <E>(
        request: HttpServerRequest.HttpServerRequest,
        csrf: string,
        section: Section,
        f: (s: Members.SignedIn, chrome: Chrome) => Effect.Effect<Out, E>
      ) =>
        Effect.gen(function* () {
          yield* refuseKeys(request)
          if (crossSite(request)) return crossSitePage()
          const s = yield* session(request)
          if (Option.isNone(s)) return toSignIn(request)
          const chrome = yield* chromeOf(s.value, section)
          if (csrf !== s.value.csrf) {
            return page(
              Pages.message(
                "This form is out of date",
                "error",
                "This form was opened before your latest sign-in (or in another session), so it was not sent and nothing was changed. Open the page again and resubmit.",
                chrome,
                [sectionHref[section], "Open the page again"]
              ),
              403
            )
          }
          return render(yield* f(s.value, chrome))
        })

      const record = (
        s: Members.SignedIn,
        request: HttpServerRequest.HttpServerRequest,
        action: Audit.Action,
        subject: string
      ) =>
        audit.record({
          accountId: s.member.accountId,
          actor: s.member.email,
          address: addressOf(request),
          action,
          subject
        })

      const refusal =
        (chrome: Chrome) =>
        (e: Members.Forbidden | Members.MemberNotFound | Keys.KeyNotFound | Members.InvitationNotFound) => {
          switch (e._tag) {
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
            case "InvitationNotFound":
              return Effect.succeed(
                page(Pages.message("Not found", "error", "No such pending invitation in this account.", chrome), 404)
              )
          }
        }

      /** Sends a one-time link by email when mail is configured: `sent`, `unsent` (the send failed) or `none`. */
      const mail = (to: string, subject: string, text: string) =>
        mailer.configured
          ? mailer.send({ to, subject, text }).pipe(
              Effect.as("sent" as const),
              Effect.catchAll((e) =>
                Effect.logWarning(`email not sent: ${e.reason}`).pipe(Effect.as("unsent" as const))
              )
            )
          : Effect.succeed("none" as const)

      const keyNames = (accountId: string) =>
        Effect.map(Effect.orDie(keys.list(accountId)), (list) => new Map(list.map((k) => [k.id, k.name] as const)))

      const usageOf = (accountId: string) =>
        Effect.gen(function* () {
          yield* keys.flushUsage()
          const now = yield* DateTime.now
          const since = DateTime.formatIso(DateTime.subtract(now, { days: usageDays - 1 })).slice(0, 10)
          const rows = yield* reports.usage(accountId, since)
          return { now, rows, names: yield* keyNames(accountId) }
        })

      const keysPage = (s: Members.SignedIn, chrome: Chrome, form?: FormState) =>
        Effect.gen(function* () {
          const list = yield* Effect.orDie(keys.list(s.member.accountId))
          return Pages.keys(chrome, list, yield* DateTime.now, form)
        })

      const keyOf = (s: Members.SignedIn, keyId: string) =>
        Effect.map(Effect.orDie(keys.list(s.member.accountId)), (list) => list.find((k) => k.id === keyId))

      const keyPage = (s: Members.SignedIn, chrome: Chrome, keyId: string, form?: FormState, status = 200) =>
        Effect.gen(function* () {
          const key = yield* keyOf(s, keyId)
          if (key === undefined)
            return page(Pages.message("Not found", "error", "No such key in this account.", chrome), 404)
          return page(Pages.keyPage(chrome, key, yield* DateTime.now, form), status)
        })

      const membersPage = (
        s: Members.SignedIn,
        chrome: Chrome,
        extra?: Parameters<typeof Pages.members>[5],
        status = 200
      ) =>
        Effect.gen(function* () {
          const list = yield* members.list(s.member.accountId)
          const pending = s.member.role === "owner" ? yield* members.pendingInvitations(s.member.accountId) : []
          return page(Pages.members(chrome, list, pending, s.member.id, yield* DateTime.now, extra), status)
        })

      const overviewPage = (s: Members.SignedIn, chrome: Chrome, origin: string, form?: FormState, status = 200) =>
        Effect.gen(function* () {
          const account = yield* Effect.orDie(accounts.find(s.member.accountId))
          const usage = yield* usageOf(s.member.accountId)
          const list = yield* Effect.orDie(keys.list(s.member.accountId))
          const now = yield* DateTime.now
          return page(
            Pages.overview(chrome, account, usage.rows, usage.now, {
              origin,
              activeKeys: list.filter((k) => Keys.stateAt(k, now) === "active"),
              threshold: yield* lowBalance.threshold(s.member.accountId),
              ...(form === undefined ? {} : { form })
            }),
            status
          )
        })

      const invitationMail = (origin: string, invited: { readonly email: string; readonly token: string }) => {
        const link = `${origin}/dashboard/sign-up?token=${invited.token}`
        return Effect.map(
          mail(
            invited.email,
            "Your invitation to the Platform Data API dashboard",
            `You were invited to an account of the Platform Data API.\n\nChoose your password here (the link works once, for 7 days):\n${link}\n\nIf you did not expect this, ignore this email.`
          ),
          (sent): Pages.LinkNotice => ({
            title: `Invitation for ${invited.email}`,
            email: invited.email,
            link,
            mail: sent
          })
        )
      }

      const resetMail = (origin: string, email: string, token: string) => {
        const link = `${origin}/dashboard/reset?token=${token}`
        return Effect.map(
          mail(
            email,
            "Reset your Platform Data API dashboard password",
            `A password reset was asked for your dashboard access.\n\nChoose a new password here (the link works once, for one hour; using it signs you out everywhere):\n${link}\n\nIf you did not ask for this, ignore this email: your password stays as it is.`
          ),
          (sent): Pages.LinkNotice => ({ title: `Password reset link for ${email}`, email, link, mail: sent })
        )
      }

      const invalidLink = (kind: "sign-up" | "reset", message: string) =>
        page(
          Pages.message(kind === "sign-up" ? "Sign-up link" : "Password reset link", "error", message, undefined, [
            "/dashboard/sign-in",
            "Go to sign-in"
          ]),
          400
        )

      return handlers
        .handleRaw("overview", ({ request }) =>
          signedInPage(request, "overview", (s, chrome) => overviewPage(s, chrome, originOf(request)))
        )
        .handle("signInPage", ({ urlParams, request }) =>
          Effect.zipRight(
            refuseKeys(request),
            Effect.map(session(request), (s) => {
              if (Option.isSome(s)) return seeOther("/dashboard")
              const reason = urlParams.reason
              const known = reason === "expired" || reason === "reset" || reason === "joined" || reason === "password"
              return page(Pages.signIn({ mail: mailer.configured, ...(known ? { reason } : {}) }))
            })
          )
        )
        .handle("signIn", ({ payload, request }) =>
          Effect.gen(function* () {
            yield* refuseKeys(request)
            if (crossSite(request)) return crossSitePage()
            const address = addressOf(request)
            return yield* members.signIn({ email: payload.email, password: payload.password, address }).pipe(
              Effect.tap(({ member }) =>
                audit.record({
                  accountId: member.accountId,
                  actor: member.email,
                  address,
                  action: "signed in",
                  subject: ""
                })
              ),
              Effect.map(({ token }) =>
                HttpServerResponse.unsafeSetCookie(seeOther("/dashboard"), cookieName, token, {
                  httpOnly: true,
                  sameSite: "lax",
                  secure: overTls(request),
                  path: "/dashboard"
                })
              ),
              Effect.catchTags({
                SignInRefused: (e) =>
                  Effect.succeed(page(Pages.signIn({ error: e.message, email: payload.email }), 401)),
                SignInLimited: (e) =>
                  Effect.succeed(
                    HttpServerResponse.setHeader(
                      page(Pages.signIn({ error: e.message, email: payload.email }), 429),
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
          Effect.zipRight(
            refuseKeys(request),
            members.validInvitation(urlParams.token ?? "").pipe(
              Effect.as(page(Pages.signUp(urlParams.token ?? ""))),
              Effect.catchTag("InvitationInvalid", (e) => Effect.succeed(invalidLink("sign-up", e.message)))
            )
          )
        )
        .handle("signUp", ({ payload, request }) =>
          Effect.gen(function* () {
            yield* refuseKeys(request)
            if (crossSite(request)) return crossSitePage()
            return yield* members.accept(payload.token, payload.password).pipe(
              Effect.tap((m) =>
                audit.record({
                  accountId: m.accountId,
                  actor: m.email,
                  address: addressOf(request),
                  action: "member joined",
                  subject: `${m.email} (${m.role})`
                })
              ),
              Effect.as(seeOther("/dashboard/sign-in?reason=joined")),
              Effect.catchTags({
                InvitationInvalid: (e) => Effect.succeed(invalidLink("sign-up", e.message)),
                InvalidInput: (e) => Effect.succeed(page(Pages.signUp(payload.token, fieldError(e, {})), 400))
              })
            )
          })
        )
        .handle("forgotPage", ({ urlParams, request }) =>
          Effect.zipRight(
            refuseKeys(request),
            Effect.succeed(page(Pages.forgot(mailer.configured, {}, urlParams.sent === "1")))
          )
        )
        .handle("forgot", ({ payload, request }) =>
          Effect.gen(function* () {
            yield* refuseKeys(request)
            if (crossSite(request)) return crossSitePage()
            if (!mailer.configured) return seeOther("/dashboard/forgot")
            return yield* members.forgot(payload.email, addressOf(request)).pipe(
              Effect.tap((issued) =>
                Option.match(issued, {
                  onNone: () => Effect.void,
                  onSome: (r) =>
                    Effect.zipRight(
                      resetMail(originOf(request), r.member.email, r.token),
                      audit.record({
                        accountId: r.member.accountId,
                        actor: r.member.email,
                        address: addressOf(request),
                        action: "password reset issued",
                        subject: `${r.member.email} (forgot password, by email)`
                      })
                    )
                })
              ),
              // the same answer whether or not the email is a member's
              Effect.as(seeOther("/dashboard/forgot?sent=1")),
              Effect.catchTags({
                InvalidInput: (e) =>
                  Effect.succeed(page(Pages.forgot(true, fieldError(e, { email: payload.email })), 400)),
                SignInLimited: (e) =>
                  Effect.succeed(
                    HttpServerResponse.setHeader(
                      page(Pages.message("Forgot your password?", "error", e.message), 429),
                      "retry-after",
                      String(e.retryAfterSeconds)
                    )
                  )
              })
            )
          })
        )
        .handle("resetPage", ({ urlParams, request }) =>
          Effect.zipRight(
            refuseKeys(request),
            members.validReset(urlParams.token ?? "").pipe(
              Effect.as(page(Pages.reset(urlParams.token ?? ""))),
              Effect.catchTag("ResetInvalid", (e) => Effect.succeed(invalidLink("reset", e.message)))
            )
          )
        )
        .handle("reset", ({ payload, request }) =>
          Effect.gen(function* () {
            yield* refuseKeys(request)
            if (crossSite(request)) return crossSitePage()
            return yield* members.resetPassword(payload.token, payload.password).pipe(
              Effect.tap((m) =>
                audit.record({
                  accountId: m.accountId,
                  actor: m.email,
                  address: addressOf(request),
                  action: "password reset used",
                  subject: m.email
                })
              ),
              Effect.as(seeOther("/dashboard/sign-in?reason=reset")),
              Effect.catchTags({
                ResetInvalid: (e) => Effect.succeed(invalidLink("reset", e.message)),
                InvalidInput: (e) => Effect.succeed(page(Pages.reset(payload.token, fieldError(e, {})), 400))
              })
            )
          })
        )
        .handleRaw("keys", ({ request }) => signedInPage(request, "keys", (s, chrome) => keysPage(s, chrome)))
        .handle("createKey", ({ payload, request }) =>
          signedInPost(request, payload.csrf, "keys", (s, chrome) =>
            keys
              .create({
                accountId: s.member.accountId,
                name: payload.name,
                expiresAt: parseExpiry(payload.expires),
                monthlyCreditLimit: parseWhole(payload.limit)
              })
              .pipe(
                Effect.tap((created) =>
                  record(s, request, "key created", `${created.stored.name} (${created.stored.prefix}…)`)
                ),
                Effect.flatMap((created) =>
                  issueTicket(s.sessionDigest, { _tag: "key", name: created.stored.name, key: created.key })
                ),
                Effect.map((ticket) => seeOther(`/dashboard/keys/created?ticket=${ticket}`)),
                Effect.catchTags({
                  InvalidInput: (e) =>
                    Effect.map(
                      keysPage(
                        s,
                        chrome,
                        fieldError(e, { name: payload.name, expires: payload.expires, limit: payload.limit })
                      ),
                      (html) => page(html, 400)
                    ),
                  AccountNotFound: (e) => Effect.die(e)
                })
              )
          )
        )
        .handle("keyCreated", ({ urlParams, request }) =>
          signedInPage(request, "keys", (s, chrome) =>
            Effect.map(takeTicket(s.sessionDigest, urlParams.ticket), (t) =>
              t?._tag === "key"
                ? Pages.keyCreated(chrome, {
                    name: t.name,
                    key: t.key,
                    origin: originOf(request),
                    ...(t.rolled === undefined ? {} : { rolled: t.rolled })
                  })
                : Pages.keyGone(chrome)
            )
          )
        )
        .handle("keyPage", ({ path, request }) =>
          signedInPage(request, "keys", (s, chrome) => keyPage(s, chrome, path.keyId))
        )
        .handle("renameKey", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "keys", (s, chrome) =>
            keys.rename(path.keyId, s.member.accountId, payload.name).pipe(
              Effect.tap((r) => record(s, request, "key renamed", `${r.before} → ${r.after} (${r.key.prefix}…)`)),
              Effect.as(seeOther(`/dashboard/keys/${path.keyId}`)),
              Effect.catchTags({
                InvalidInput: (e) => keyPage(s, chrome, path.keyId, fieldError(e, { name: payload.name }), 400),
                KeyNotFound: refusal(chrome)
              })
            )
          )
        )
        .handle("limitKey", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "keys", (s, chrome) => {
            const limit = parseWhole(payload.limit)
            return keys.setMonthlyLimit(path.keyId, s.member.accountId, limit).pipe(
              Effect.tap((k) =>
                record(
                  s,
                  request,
                  "key limit set",
                  `${k.name} (${k.prefix}…): ${Option.match(limit, { onNone: () => "no limit", onSome: (l) => `${l} credits a month` })}`
                )
              ),
              Effect.as(seeOther(`/dashboard/keys/${path.keyId}`)),
              Effect.catchTags({
                InvalidInput: (e) => keyPage(s, chrome, path.keyId, fieldError(e, { limit: payload.limit }), 400),
                KeyNotFound: refusal(chrome)
              })
            )
          })
        )
        .handle("rollKey", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "keys", (s, chrome) => {
            const hours = parseWhole(payload.grace)
            const seconds = Option.match(hours, { onNone: () => Number.NaN, onSome: (h) => h * 3600 })
            return keys.roll(path.keyId, s.member.accountId, seconds).pipe(
              Effect.tap((r) =>
                record(
                  s,
                  request,
                  "key rolled",
                  `${r.old.name} (${r.old.prefix}… → ${r.stored.prefix}…), old key valid until ${DateTime.formatIso(DateTime.unsafeMake(r.oldValidUntil))}`
                )
              ),
              Effect.flatMap((r) =>
                issueTicket(s.sessionDigest, {
                  _tag: "key",
                  name: r.stored.name,
                  key: r.key,
                  rolled: `This key replaces ${r.old.prefix}…, which keeps working until ${DateTime.formatIso(DateTime.unsafeMake(r.oldValidUntil)).slice(0, 16).replace("T", " ")} UTC and then expires.`
                })
              ),
              Effect.map((ticket) => seeOther(`/dashboard/keys/created?ticket=${ticket}`)),
              Effect.catchTags({
                InvalidInput: (e) => keyPage(s, chrome, path.keyId, fieldError(e, { grace: payload.grace }), 400),
                KeyNotFound: refusal(chrome)
              })
            )
          })
        )
        .handle("revokeKeyPage", ({ path, request }) =>
          signedInPage(request, "keys", (s, chrome) =>
            Effect.map(keyOf(s, path.keyId), (key) =>
              key === undefined
                ? page(Pages.message("Not found", "error", "No such key in this account.", chrome), 404)
                : Pages.confirmRevoke(chrome, key)
            )
          )
        )
        .handle("revokeKey", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "keys", (s, chrome) =>
            Effect.gen(function* () {
              const key = yield* keyOf(s, path.keyId)
              return yield* keys.revoke(path.keyId, s.member.accountId).pipe(
                Effect.tap((r) =>
                  r.alreadyRevoked || key === undefined
                    ? Effect.void
                    : record(s, request, "key revoked", `${key.name} (${key.prefix}…)`)
                ),
                Effect.as(seeOther("/dashboard/keys")),
                Effect.catchAll(refusal(chrome))
              )
            })
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
          signedInPage(request, "ledger", (s, chrome) =>
            Effect.gen(function* () {
              const before = urlParams.before === undefined ? undefined : Number.parseInt(urlParams.before, 10)
              const entries = yield* reports.ledgerPage(
                s.member.accountId,
                before !== undefined && Number.isSafeInteger(before) ? before : undefined,
                ledgerPageSize
              )
              return Pages.ledger(chrome, entries, ledgerPageSize, yield* keyNames(s.member.accountId))
            })
          )
        )
        .handle("members", ({ urlParams, request }) =>
          signedInPage(request, "members", (s, chrome) =>
            Effect.flatMap(takeTicket(s.sessionDigest, urlParams.ticket), (t) =>
              membersPage(s, chrome, t?._tag === "link" ? { shown: t.notice } : {})
            )
          )
        )
        .handle("inviteMember", ({ payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) => {
            const role = payload.role === "owner" ? "owner" : "member"
            const values = { email: payload.email, role }
            return members.inviteAs(s.member, payload.email, role).pipe(
              Effect.tap((invited) => record(s, request, "member invited", `${invited.email} (${invited.role})`)),
              Effect.flatMap((invited) => invitationMail(originOf(request), invited)),
              Effect.flatMap((notice) => issueTicket(s.sessionDigest, { _tag: "link", notice })),
              Effect.map((ticket) => seeOther(`/dashboard/members?ticket=${ticket}`)),
              Effect.catchTags({
                InvalidInput: (e) => membersPage(s, chrome, { invite: fieldError(e, values) }, 400),
                AlreadyMember: (e) => membersPage(s, chrome, { invite: { values, errors: { email: e.message } } }, 400),
                AccountNotFound: (e) => Effect.die(e),
                Forbidden: refusal(chrome)
              })
            )
          })
        )
        .handle("resendInvitation", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members.resendInvitation(s.member, path.invitationId).pipe(
              Effect.tap((invited) => record(s, request, "invitation resent", `${invited.email} (${invited.role})`)),
              Effect.flatMap((invited) => invitationMail(originOf(request), invited)),
              Effect.flatMap((notice) => issueTicket(s.sessionDigest, { _tag: "link", notice })),
              Effect.map((ticket) => seeOther(`/dashboard/members?ticket=${ticket}`)),
              Effect.catchTags({
                AccountNotFound: (e) => Effect.die(e),
                InvalidInput: (e) => Effect.die(e),
                AlreadyMember: (e) =>
                  Effect.succeed(
                    page(
                      Pages.message("Already a member", "info", e.message, chrome, [
                        "/dashboard/members",
                        "Back to the members"
                      ]),
                      409
                    )
                  ),
                Forbidden: refusal(chrome),
                InvitationNotFound: refusal(chrome)
              })
            )
          )
        )
        .handle("cancelInvitation", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members.cancelInvitation(s.member, path.invitationId).pipe(
              Effect.tap((i) => record(s, request, "invitation cancelled", `${i.email} (${i.role})`)),
              Effect.as(seeOther("/dashboard/members")),
              Effect.catchAll(refusal(chrome))
            )
          )
        )
        .handle("resetMember", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members.issueResetAs(s.member, path.memberId).pipe(
              Effect.tap((r) => record(s, request, "password reset issued", r.member.email)),
              Effect.flatMap((r) => resetMail(originOf(request), r.member.email, r.token)),
              Effect.flatMap((notice) => issueTicket(s.sessionDigest, { _tag: "link", notice })),
              Effect.map((ticket) => seeOther(`/dashboard/members?ticket=${ticket}`)),
              Effect.catchAll(refusal(chrome))
            )
          )
        )
        .handle("changeRole", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) => {
            const role = payload.role === "owner" ? "owner" : "member"
            return members.memberOf(s.member, path.memberId).pipe(
              Effect.tap(() => members.changeRole(s.member, path.memberId, role)),
              Effect.tap((m) => record(s, request, "member role changed", `${m.email}: ${m.role} → ${role}`)),
              Effect.as(seeOther("/dashboard/members")),
              Effect.catchAll(refusal(chrome))
            )
          })
        )
        .handle("removeMemberPage", ({ path, request }) =>
          signedInPage(request, "members", (s, chrome) =>
            Effect.gen(function* () {
              if (s.member.role !== "owner") {
                return page(Pages.message("Not allowed", "error", "only owners manage members", chrome), 403)
              }
              return yield* members.memberOf(s.member, path.memberId).pipe(
                Effect.map((m) => page(Pages.confirmRemove(chrome, m))),
                Effect.catchAll(refusal(chrome))
              )
            })
          )
        )
        .handle("removeMember", ({ path, payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members.memberOf(s.member, path.memberId).pipe(
              Effect.tap(() => members.remove(s.member, path.memberId)),
              Effect.tap((m) => record(s, request, "member removed", `${m.email} (${m.role})`)),
              Effect.as(seeOther("/dashboard/members")),
              Effect.catchAll(refusal(chrome))
            )
          )
        )
        .handle("changePassword", ({ payload, request }) =>
          signedInPost(request, payload.csrf, "members", (s, chrome) =>
            members.changePassword(s.member.id, payload.current, payload.next).pipe(
              Effect.tap(() => record(s, request, "password changed", s.member.email)),
              // every session of the member ended with the change, this one included
              Effect.as(seeOther("/dashboard/sign-in?reason=password")),
              Effect.catchTags({
                SignInRefused: () => membersPage(s, chrome, { password: { errors: { current: "is wrong" } } }, 400),
                InvalidInput: (e) => membersPage(s, chrome, { password: fieldError(e, {}) }, 400),
                MemberNotFound: () => Effect.succeed(seeOther("/dashboard/sign-in"))
              })
            )
          )
        )
        .handle("lowBalance", ({ payload, request }) =>
          signedInPost(request, payload.csrf, "overview", (s, chrome) => {
            if (s.member.role !== "owner") {
              return Effect.succeed(
                page(Pages.message("Not allowed", "error", "only owners change the low-balance warning", chrome), 403)
              )
            }
            const threshold = parseWhole(payload.threshold)
            return lowBalance.setThreshold(s.member.accountId, threshold).pipe(
              Effect.tap(() =>
                record(
                  s,
                  request,
                  "low-balance threshold set",
                  Option.match(threshold, { onNone: () => "none", onSome: (t) => `${t} credits` })
                )
              ),
              Effect.as(seeOther("/dashboard#alerts")),
              Effect.catchTag("InvalidInput", (e) =>
                overviewPage(s, chrome, originOf(request), fieldError(e, { threshold: payload.threshold }), 400)
              )
            )
          })
        )
        .handle("audit", ({ urlParams, request }) =>
          signedInPage(request, "audit", (s, chrome) => {
            const before = urlParams.before === undefined ? undefined : Number.parseInt(urlParams.before, 10)
            return Effect.map(
              audit.page(
                s.member.accountId,
                before !== undefined && Number.isSafeInteger(before) ? before : undefined,
                auditPageSize
              ),
              (entries) => Pages.audit(chrome, entries, auditPageSize)
            )
          })
        )
        .handleRaw("catalogue", ({ request }) =>
          signedInPage(request, "catalogue", (_, chrome) => Effect.succeed(Pages.catalogue(chrome)))
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
