/** The dashboard's pages as HTML strings, from values the handlers read through the domain services. */
import { type AuditLog, Catalogue, type KeyStore, type Ledger, type MemberStore, type UsageReports } from "@pdr/domain"
import { DateTime, Option } from "effect"
import {
  barChart,
  type Chrome,
  csrfField,
  type FormState,
  field,
  html,
  layout,
  notice,
  type Raw,
  table
} from "./Html.js"
import * as Words from "./Words.js"

const day = (d: DateTime.Utc) => DateTime.formatIso(d).slice(0, 10)
const instant = Words.instant
const maybe = (d: Option.Option<DateTime.Utc>) => Option.match(d, { onNone: () => "never", onSome: instant })
const passwordHint = "10 to 200 characters, not a common password; a few unrelated words work well."

/** Why the sign-in page is shown, when it says so. */
export type SignInReason = "expired" | "reset" | "joined" | "password"

const reasons: Record<SignInReason, string> = {
  expired:
    "Your session ended (signed out elsewhere, 2 hours without use, or 12 hours after signing in). Sign in again.",
  reset: "Your password was changed and every session ended. Sign in with the new password.",
  joined: "Your access is ready. Sign in with the password you chose.",
  password: "Your password was changed and every session ended, this one included. Sign in with the new password."
}

/** The sign-in form, with an error or the reason it is shown. */
export const signIn = (
  options: {
    readonly error?: string
    readonly reason?: SignInReason
    readonly email?: string
    readonly mail?: boolean
  } = {}
) =>
  layout(
    "Sign in",
    html`${options.error === undefined ? "" : notice("error", options.error)}
${options.reason === undefined ? "" : notice("info", reasons[options.reason])}
<form method="post" action="/dashboard/sign-in">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required${options.email === undefined ? "" : html` value="${options.email}"`}>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p>
</form>
<p><a href="/dashboard/forgot">Forgot your password?</a></p>`
  )

/** The sign-up form of an invitation. */
export const signUp = (token: string, form: FormState = {}) =>
  layout(
    "Create your password",
    html`<p>You were invited to an account. Choose a password to finish signing up.</p>
<form method="post" action="/dashboard/sign-up">
<input type="hidden" name="token" value="${token}">
${field(form, "password", "Password", { type: "password", hint: passwordHint, extra: 'autocomplete="new-password" required' })}
<p><button type="submit">Create account access</button></p>
</form>`
  )

/** "Forgot password": by email when mail is configured; otherwise who can help. */
export const forgot = (mail: boolean, form: FormState = {}, sent = false) =>
  layout(
    "Forgot your password?",
    sent
      ? html`${notice("info", "If that email belongs to a member, a reset link is on its way. It works once, for one hour.")}
<p><a href="/dashboard/sign-in">Back to sign-in</a></p>`
      : mail
        ? html`<p>Enter your email; if it belongs to a member, we send a one-time reset link valid for one hour.</p>
<form method="post" action="/dashboard/forgot">
${field(form, "email", "Email", { type: "email", extra: 'autocomplete="username" required' })}
<p><button type="submit">Send a reset link</button></p>
</form>
<p><a href="/dashboard/sign-in">Back to sign-in</a></p>`
        : html`${notice("info", "This server sends no email. Ask an owner of your account for a reset link (Members page), or the operator (pnpm admin member reset).")}
<p><a href="/dashboard/sign-in">Back to sign-in</a></p>`
  )

/** The new-password form of a reset link. */
export const reset = (token: string, form: FormState = {}) =>
  layout(
    "Choose a new password",
    html`<p>Setting a new password signs you out everywhere.</p>
<form method="post" action="/dashboard/reset">
<input type="hidden" name="token" value="${token}">
${field(form, "password", "New password", { type: "password", hint: passwordHint, extra: 'autocomplete="new-password" required' })}
<p><button type="submit">Set the new password</button></p>
</form>`
  )

/** A page that only says something (refusals, invalid links), with where to go next. */
export const message = (
  title: string,
  kind: "error" | "info",
  text: string,
  chrome?: Chrome,
  next: readonly [string, string] = ["/dashboard", "Back to the dashboard"]
) => layout(title, html`${notice(kind, text)}<p><a href="${next[0]}">${next[1]}</a></p>`, chrome)

/** The HTML page of an error under /dashboard (unknown address, malformed form, a server fault). */
export const errorPage = (status: number) => {
  const [title, text] =
    status === 404
      ? ["Page not found", "There is no dashboard page at this address. It may have been mistyped or moved."]
      : status >= 500
        ? [
            "Something went wrong",
            "The server could not complete this request; nothing was changed. Try again in a moment."
          ]
        : [
            "Request not understood",
            "This form was incomplete or out of date; nothing was changed. Open the page again and retry."
          ]
  return layout(
    title,
    html`${notice("error", text)}<p><a href="/dashboard">Go to the dashboard</a> · <a href="/dashboard/sign-in">Sign in</a></p>`
  )
}

/** Credits spent per day over `days` days ending today, from usage rows. */
export const perDay = (rows: ReadonlyArray<UsageReports.UsageRow>, today: DateTime.Utc, days: number) => {
  const sums = new Map<string, number>()
  for (const r of rows) sums.set(r.day, (sums.get(r.day) ?? 0) + r.credits)
  const out: Array<readonly [string, number]> = []
  for (let i = days - 1; i >= 0; i--) {
    const d = day(DateTime.subtract(today, { days: i }))
    out.push([d, sums.get(d) ?? 0])
  }
  return out
}

const totalsBy = (rows: ReadonlyArray<UsageReports.UsageRow>, key: (r: UsageReports.UsageRow) => string) => {
  const m = new Map<string, { calls: number; credits: number }>()
  for (const r of rows) {
    const e = m.get(key(r)) ?? { calls: 0, credits: 0 }
    m.set(key(r), { calls: e.calls + r.calls, credits: e.credits + r.credits })
  }
  return [...m].sort((a, b) => b[1].credits - a[1].credits || b[1].calls - a[1].calls)
}

/** What the overview shows beside the figures. */
export interface OverviewExtra {
  readonly origin: string
  /** Active keys: none leads to the first-run steps. */
  readonly activeKeys: ReadonlyArray<KeyStore.StoredKey>
  readonly threshold: Option.Option<number>
  readonly form?: FormState
}

/** The overview: balance, held, spendable, the first-run steps or credits per day, most used ops, alert settings. */
export const overview = (
  chrome: Chrome,
  account: Ledger.Account,
  rows: ReadonlyArray<UsageReports.UsageRow>,
  today: DateTime.Utc,
  extra: OverviewExtra
) => {
  const firstKey = extra.activeKeys[0]
  const owner = chrome.role === "owner"
  return layout(
    "Overview",
    html`<ul class="stats">
<li><strong>${account.balance}</strong> credits balance</li>
<li><strong>${account.held}</strong> held by calls in flight</li>
<li><strong>${account.spendable}</strong> spendable</li>
</ul>
${
  rows.length === 0
    ? html`<section aria-labelledby="start-title"><h2 id="start-title">Get started</h2>
<ol class="steps">
<li>${
        firstKey === undefined
          ? html`<a href="/dashboard/keys#create">Create an API key</a>: it is shown once, copy it then.`
          : html`You have a key: <strong>${firstKey.name}</strong> (<code>${firstKey.prefix}…</code>). <a href="/dashboard/keys">Manage keys</a>`
      }</li>
<li>Make a first call (${Words.firstCall.op.platform} ${Words.firstCall.op.name}: ${Words.price(Words.firstCall.op.price)}). Paste it in a terminal with your full key in place of the prefix:
<pre id="first-call">${Words.curl(extra.origin, firstKey === undefined ? "key_live_…" : `${firstKey.prefix}…`)}</pre>
<button type="button" data-copy="first-call">Copy command</button></li>
<li>Read the <a href="/docs">API reference</a> and the <a href="/dashboard/catalogue">catalogue</a>: every platform, op, price and freshness window.</li>
</ol></section>`
    : html`<h2>Credits spent per day (last 30 days, UTC)</h2>
${barChart("Credits spent per day, last 30 days", perDay(rows, today, 30))}
${table(
  "Most used platforms and ops (last 30 days)",
  ["Platform", "Op", "Calls", "Credits"],
  totalsBy(rows, (r) => `${r.platform} ${r.op}`)
    .slice(0, 10)
    .map(([k, v]) => [...k.split(" "), v.calls, v.credits])
)}`
}
<h2 id="alerts">Low-balance warning</h2>
<p>${Option.match(extra.threshold, {
      onNone: () => "No warning is set.",
      onSome: (t) => `A banner shows on every page while spendable credits are below ${t}.`
    })}</p>
${
  owner
    ? html`<form method="post" action="/dashboard/settings/low-balance">${csrfField(chrome.csrf)}
${field(
  {
    values: { threshold: Option.match(extra.threshold, { onNone: () => "", onSome: String }), ...extra.form?.values },
    ...(extra.form?.errors === undefined ? {} : { errors: extra.form.errors })
  },
  "threshold",
  "Warn below (credits; empty for no warning)",
  { type: "number", extra: 'min="1" step="1" inputmode="numeric"' }
)}
<p><button type="submit">Save warning</button></p></form>`
    : ""
}`,
    chrome
  )
}

const stateOf = (k: KeyStore.StoredKey, now: DateTime.Utc) =>
  Option.isSome(k.revokedAt)
    ? "revoked"
    : Option.isSome(k.expiresAt) && !DateTime.lessThan(now, k.expiresAt.value)
      ? Option.isSome(k.replacedBy)
        ? "rolled"
        : "expired"
      : Option.isSome(k.replacedBy)
        ? "rolled, in grace"
        : "active"

const limitText = (k: KeyStore.StoredKey) =>
  Option.match(k.monthlyCreditLimit, {
    onNone: () => `${k.creditsThisMonth} (no limit)`,
    onSome: (l) => `${k.creditsThisMonth} of ${l}`
  })

/** The keys page: the create form (values and messages kept when refused) and the list. */
export const keys = (
  chrome: Chrome,
  list: ReadonlyArray<KeyStore.StoredKey>,
  now: DateTime.Utc,
  form: FormState = {}
) =>
  layout(
    "API keys",
    html`<h2 id="create">Create a key</h2>
<form method="post" action="/dashboard/keys">
${csrfField(chrome.csrf)}
${field(form, "name", "Name", { extra: 'required maxlength="100"' })}
${field(form, "expires", "Expires (optional, end of that day UTC)", { type: "date" })}
${field(form, "limit", "Monthly credit limit (optional)", { type: "number", extra: 'min="1" step="1" inputmode="numeric"' })}
<p><button type="submit">Create key</button></p>
</form>
${table(
  "Keys (times in UTC)",
  ["Name", "Prefix", "State", "Credits this month", "Last used"],
  list.map((k) => [
    html`<a href="/dashboard/keys/${k.id}">${k.name}</a>`,
    html`<code>${k.prefix}…</code>`,
    stateOf(k, now),
    limitText(k),
    maybe(k.lastUsedAt)
  ])
)}
<p>Open a key to set its monthly credit limit, rename, roll or revoke it.</p>`,
    chrome
  )

/** The one page that shows a new key in full, with a first call ready to paste. */
export const keyCreated = (
  chrome: Chrome,
  created: { readonly name: string; readonly key: string; readonly origin: string; readonly rolled?: string }
) =>
  layout(
    "Your new key",
    html`<section aria-labelledby="new-key-title" class="notice warning">
<h2 id="new-key-title">Your new key "${created.name}"</h2>
<p><strong>Copy it now: it is shown only this once and cannot be shown again.</strong> Only its digest is stored.</p>
<p id="new-key" class="secret">${created.key}</p>
<p><button type="button" data-copy="new-key">Copy key</button></p>
</section>
${created.rolled === undefined ? "" : notice("info", created.rolled)}
<h2>Try it</h2>
<p>A first call (${Words.firstCall.op.platform} ${Words.firstCall.op.name}, ${Words.price(Words.firstCall.op.price)}):</p>
<pre id="first-call">${Words.curl(created.origin, created.key)}</pre>
<p><button type="button" data-copy="first-call">Copy command</button></p>
<p>Every op and its fields: <a href="/docs">API reference</a>. <a href="/dashboard/keys">Back to the keys</a></p>`,
    chrome
  )

/** A reload of the new-key page: the key is gone for good. */
export const keyGone = (chrome: Chrome) =>
  message(
    "Key already shown",
    "info",
    "This key was shown once and is not shown again (only its digest is stored). It is listed on the keys page by its prefix; if it was not copied, roll it or revoke it and create another.",
    chrome,
    ["/dashboard/keys", "Go to the keys"]
  )

/** One key: its spend this month against its limit, rename, limit, roll, revoke. */
export const keyPage = (chrome: Chrome, k: KeyStore.StoredKey, now: DateTime.Utc, form: FormState = {}) => {
  const state = stateOf(k, now)
  const live = state === "active"
  return layout(
    `Key "${k.name}"`,
    html`<ul class="stats">
<li><strong>${k.creditsThisMonth}</strong> credits this month${Option.match(k.monthlyCreditLimit, { onNone: () => "", onSome: (l) => ` of a ${l} limit` })}</li>
<li><strong>${k.creditsSpent}</strong> credits in all</li>
<li><strong>${k.calls}</strong> calls</li>
</ul>
<p>Prefix <code>${k.prefix}…</code>, ${state}; created ${instant(k.createdAt)}; expires ${Option.match(k.expiresAt, { onNone: () => "never", onSome: instant })}; last used ${maybe(k.lastUsedAt)}.</p>
${
  state === "revoked"
    ? ""
    : html`<h2>Rename</h2>
<form method="post" action="/dashboard/keys/${k.id}/rename">${csrfField(chrome.csrf)}
${field({ values: { name: k.name, ...form.values }, ...(form.errors === undefined ? {} : { errors: form.errors }) }, "name", "Name", { extra: 'required maxlength="100"' })}
<p><button type="submit">Rename key</button></p></form>
<h2>Monthly credit limit</h2>
<p>A call that would take this key past its limit in a calendar month (UTC) is refused with 402 <code>key_credit_limit</code>, before anything is fetched or billed.</p>
<form method="post" action="/dashboard/keys/${k.id}/limit">${csrfField(chrome.csrf)}
${field(
  {
    values: { limit: Option.match(k.monthlyCreditLimit, { onNone: () => "", onSome: String }), ...form.values },
    ...(form.errors === undefined ? {} : { errors: form.errors })
  },
  "limit",
  "Limit in credits (empty for none)",
  { type: "number", extra: 'min="1" step="1" inputmode="numeric"' }
)}
<p><button type="submit">Save limit</button></p></form>`
}
${
  live
    ? html`<h2>Roll</h2>
<p>A new key replaces this one; this one keeps working for the grace period you choose, then expires.</p>
<form method="post" action="/dashboard/keys/${k.id}/roll">${csrfField(chrome.csrf)}
${field({ values: { grace: "1", ...form.values }, ...(form.errors === undefined ? {} : { errors: form.errors }) }, "grace", "Grace period (hours, 0 to 24)", { type: "number", extra: 'min="0" max="24" step="1" inputmode="numeric" required' })}
<p><button type="submit">Roll key</button></p></form>`
    : ""
}
${state === "revoked" ? "" : html`<p><a href="/dashboard/keys/${k.id}/revoke">Revoke ${k.name}</a></p>`}
<p><a href="/dashboard/keys">Back to the keys</a></p>`,
    chrome
  )
}

/** The confirmation before a revocation. */
export const confirmRevoke = (chrome: Chrome, key: KeyStore.StoredKey) =>
  layout(
    "Revoke a key",
    html`${notice("warning", `Revoke the key "${key.name}" (${key.prefix}…)? Calls made with it are refused from the very next one on. This cannot be undone.`)}
<form method="post" action="/dashboard/keys/${key.id}/revoke">
${csrfField(chrome.csrf)}
<p><button type="submit" class="danger">Revoke key</button> <a href="/dashboard/keys/${key.id}">Cancel</a></p>
</form>`,
    chrome
  )

/** The usage page: by day, by key, by platform and op. */
export const usage = (
  chrome: Chrome,
  rows: ReadonlyArray<UsageReports.UsageRow>,
  keyNames: ReadonlyMap<string, string>
) =>
  layout(
    "Usage",
    html`<p>Calls and credits over the last 30 days. <a href="/dashboard/usage.csv" download>Download as CSV</a></p>
${table(
  "By day (UTC)",
  ["Day", "Calls", "Credits"],
  totalsBy(rows, (r) => r.day)
    .sort((a, b) => (a[0] < b[0] ? 1 : -1))
    .map(([d, v]) => [d, v.calls, v.credits])
)}
${table(
  "By key",
  ["Key", "Calls", "Credits"],
  totalsBy(rows, (r) => r.keyId).map(([k, v]) => [keyNames.get(k) ?? k, v.calls, v.credits])
)}
${table(
  "By platform and op",
  ["Platform", "Op", "Calls", "Credits"],
  totalsBy(rows, (r) => `${r.platform} ${r.op}`).map(([k, v]) => [...k.split(" "), v.calls, v.credits])
)}`,
    chrome
  )

const csvCell = (v: unknown) => {
  const s = String(v)
  // a leading =, +, - or @ would be a formula in a spreadsheet
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s
  return /[",\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** The usage rows as CSV. */
export const usageCsv = (rows: ReadonlyArray<UsageReports.UsageRow>, keyNames: ReadonlyMap<string, string>) => {
  const lines = rows.map((r) =>
    [r.day, r.keyId, keyNames.get(r.keyId) ?? "", r.platform, r.op, r.calls, r.credits].map(csvCell).join(",")
  )
  return `${["day,key_id,key_name,platform,op,calls,credits", ...lines].join("\n")}\n`
}

/** The ledger page, newest first, keys by name, with a link to older entries. */
export const ledger = (
  chrome: Chrome,
  entries: ReadonlyArray<Ledger.LedgerEntry>,
  pageSize: number,
  keyNames: ReadonlyMap<string, string>
) =>
  layout(
    "Ledger",
    html`${table(
      "Grants and charges, newest first (times in UTC)",
      ["When", "Kind", "Credits", "Reason", "Key"],
      entries.map((e) => [
        instant(e.at),
        e.kind === "grant" ? "grant" : "charge",
        e.credits,
        e.reason,
        e.keyId === null ? "" : (keyNames.get(e.keyId) ?? e.keyId)
      ])
    )}
<p><a href="/dashboard/ledger">Newest</a>${
      entries.length === pageSize
        ? html` · <a href="/dashboard/ledger?before=${entries[entries.length - 1]?.id}">Older entries</a>`
        : ""
    }</p>`,
    chrome
  )

/** A link shown once after an invitation or a reset: sent by email, or to copy (no mail, or the mail failed). */
export interface LinkNotice {
  readonly title: string
  readonly email: string
  readonly link: string
  /** `sent`: emailed; `unsent`: the email failed; `none`: no mail server. */
  readonly mail: "sent" | "unsent" | "none"
}

const linkNotice = (n: LinkNotice) =>
  html`<section class="notice ${n.mail === "unsent" ? "warning" : "info"}" aria-labelledby="link-title"><h2 id="link-title">${n.title}</h2>${
    n.mail === "sent"
      ? html`<p>An email with the one-time link was sent to ${n.email}.</p>`
      : html`<p>${
          n.mail === "unsent"
            ? `The email to ${n.email} could not be sent. Send them this one-time link yourself; it is shown only now:`
            : `Send this one-time link to ${n.email} (this server sends no email); it is shown only now:`
        }</p>
<p id="invite-link" class="secret">${n.link}</p>
<p><button type="button" data-copy="invite-link">Copy link</button></p>`
  }</section>`

/** The members page: the list for everyone; invitations, roles, resets and removal for owners. */
export const members = (
  chrome: Chrome,
  list: ReadonlyArray<MemberStore.Member>,
  pending: ReadonlyArray<MemberStore.PendingInvitation>,
  self: string,
  now: DateTime.Utc,
  extra: { readonly shown?: LinkNotice; readonly invite?: FormState; readonly password?: FormState } = {}
) => {
  const owner = chrome.role === "owner"
  const manage = (m: MemberStore.Member): Raw =>
    html`<form method="post" action="/dashboard/members/${m.id}/role" class="inline">${csrfField(chrome.csrf)}
<label for="role-${m.id}" class="visually-hidden">Role of ${m.email}</label>
<select id="role-${m.id}" name="role">${(["owner", "member"] as const).map(
      (r) => html`<option value="${r}"${r === m.role ? html` selected` : ""}>${r}</option>`
    )}</select> <button type="submit">Change role</button></form>
${
  m.id === self
    ? ""
    : html`<form method="post" action="/dashboard/members/${m.id}/reset" class="inline">${csrfField(chrome.csrf)}
<button type="submit" aria-label="Password reset link for ${m.email}">Reset link</button></form>
<a href="/dashboard/members/${m.id}/remove" aria-label="Remove ${m.email}">Remove</a>`
}`
  const nowMs = DateTime.toEpochMillis(now)
  return layout(
    "Members",
    html`${extra.shown === undefined ? "" : linkNotice(extra.shown)}
${
  owner
    ? html`<h2>Invite a member</h2>
<form method="post" action="/dashboard/members/invite">${csrfField(chrome.csrf)}
${field(extra.invite ?? {}, "email", "Email", { id: "invite-email", type: "email", extra: "required" })}
<label for="invite-role">Role</label><select id="invite-role" name="role">${(["member", "owner"] as const).map(
        (r) => html`<option value="${r}"${extra.invite?.values?.["role"] === r ? html` selected` : ""}>${r}</option>`
      )}</select>
<p><button type="submit">Create invitation link</button></p></form>
${table(
  "Pending invitations (times in UTC)",
  ["Email", "Role", "Sent", "Link valid until", ""],
  pending.map((i) => [
    i.email,
    i.role,
    instant(i.createdAt),
    i.expiresAt.getTime() <= nowMs ? `expired ${instant(i.expiresAt)}` : instant(i.expiresAt),
    html`<form method="post" action="/dashboard/members/invitations/${i.id}/resend" class="inline">${csrfField(chrome.csrf)}<button type="submit" aria-label="Resend the invitation of ${i.email}">Resend</button></form>
<form method="post" action="/dashboard/members/invitations/${i.id}/cancel" class="inline">${csrfField(chrome.csrf)}<button type="submit" class="danger" aria-label="Cancel the invitation of ${i.email}">Cancel</button></form>`
  ])
)}`
    : notice("info", "Only owners manage members.")
}
${table(
  "Members of this account",
  owner ? ["Email", "Role", "Since", "Manage"] : ["Email", "Role", "Since"],
  list.map((m) => {
    const cells: Array<unknown> = [m.id === self ? `${m.email} (you)` : m.email, m.role, day(m.createdAt)]
    if (owner) cells.push(manage(m))
    return cells
  })
)}
<h2>Your password</h2>
<p>Changing it signs you out everywhere, this browser included.</p>
<form method="post" action="/dashboard/password">${csrfField(chrome.csrf)}
<input type="text" name="username" autocomplete="username" value="${chrome.email}" hidden>
${field(extra.password ?? {}, "current", "Current password", { id: "current-password", type: "password", extra: 'autocomplete="current-password" required' })}
${field(extra.password ?? {}, "next", "New password", { id: "new-password", type: "password", hint: passwordHint, extra: 'autocomplete="new-password" required' })}
<p><button type="submit">Change password</button></p></form>`,
    chrome
  )
}

/** The confirmation before a member is removed. */
export const confirmRemove = (chrome: Chrome, m: MemberStore.Member) =>
  layout(
    "Remove a member",
    html`${notice("warning", `Remove ${m.email} (${m.role}) from this account? Their sessions end at once and they can no longer sign in. Keys they created stay.`)}
<form method="post" action="/dashboard/members/${m.id}/remove">
${csrfField(chrome.csrf)}
<p><button type="submit" class="danger">Remove member</button> <a href="/dashboard/members">Cancel</a></p>
</form>`,
    chrome
  )

/** The audit log, newest first (append-only, kept a year). */
export const audit = (chrome: Chrome, entries: ReadonlyArray<AuditLog.AuditEntry>, pageSize: number) =>
  layout(
    "Audit log",
    html`<p>Who did what in this account, from which address. Entries cannot be changed and are kept for one year.</p>
${table(
  "Audit log, newest first (times in UTC)",
  ["When", "Who", "What", "Subject", "From"],
  entries.map((e) => [instant(e.at), e.actor, e.action, html`<span class="long">${e.subject}</span>`, e.address])
)}
<p><a href="/dashboard/audit">Newest</a>${
      entries.length === pageSize
        ? html` · <a href="/dashboard/audit?before=${entries[entries.length - 1]?.id}">Older entries</a>`
        : ""
    }</p>`,
    chrome
  )

/** The catalogue in words, from the catalogue's own op definitions; each op links to its place in /docs. */
export const catalogue = (chrome: Chrome) =>
  layout(
    "Catalogue",
    html`<p>Prices are charged only for what is delivered; a call never costs more than its quote. Full request and answer fields: <a href="/docs">API reference</a>.</p>
${Catalogue.platforms.map((p) =>
  table(
    `${p.id}: ${p.description}`,
    ["Op", "What it does", "Price", "Freshness", "Available"],
    p.ops.map((o) => [
      html`<a href="${Words.docsLink(p.id)}">${o.name}</a>`,
      html`<span class="long">${o.description}</span>`,
      html`<span class="long">${Words.price(o.price)}</span>`,
      html`<span class="long">${Words.freshness(o.freshSeconds)}</span>`,
      o.available ? "yes" : "not now"
    ])
  )
)}`,
    chrome
  )
