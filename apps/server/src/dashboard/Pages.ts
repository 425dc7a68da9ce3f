/** The dashboard's pages as HTML strings, from values the handlers read through the domain services. */
import type { Catalogue, KeyStore, Ledger, MemberStore, UsageReports } from "@pdr/domain"
import { DateTime, Option } from "effect"
import { barChart, type Chrome, csrfField, html, layout, notice, type Raw, table } from "./Html.js"

const day = (d: DateTime.Utc) => DateTime.formatIso(d).slice(0, 10)
const instant = (d: DateTime.Utc) => DateTime.formatIso(d).slice(0, 16).replace("T", " ")
const maybe = (d: Option.Option<DateTime.Utc>) => Option.match(d, { onNone: () => "never", onSome: instant })

/** The sign-in form, with an error when one is given. */
export const signIn = (error?: string) =>
  layout(
    "Sign in",
    html`${error === undefined ? "" : notice("error", error)}
<form method="post" action="/dashboard/sign-in">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p>
</form>`
  )

/** The sign-up form of an invitation. */
export const signUp = (token: string, error?: string) =>
  layout(
    "Create your password",
    html`${error === undefined ? "" : notice("error", error)}
<p>You were invited to an account. Choose a password of at least 10 characters to finish signing up.</p>
<form method="post" action="/dashboard/sign-up">
<input type="hidden" name="token" value="${token}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required>
<p><button type="submit">Create account access</button></p>
</form>`
  )

/** A page that only says something (refusals, invalid links). */
export const message = (title: string, kind: "error" | "info", text: string, chrome?: Chrome) =>
  layout(title, html`${notice(kind, text)}<p><a href="/dashboard">Back to the dashboard</a></p>`, chrome)

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

/** The overview: balance, held, spendable, credits per day (30 days), most used platforms and ops. */
export const overview = (
  chrome: Chrome,
  account: Ledger.Account,
  rows: ReadonlyArray<UsageReports.UsageRow>,
  today: DateTime.Utc
) =>
  layout(
    "Overview",
    html`<ul class="stats">
<li><strong>${account.balance}</strong> credits balance</li>
<li><strong>${account.held}</strong> held by calls in flight</li>
<li><strong>${account.spendable}</strong> spendable</li>
</ul>
<h2>Credits spent per day (last 30 days)</h2>
${barChart("Credits spent per day, last 30 days", perDay(rows, today, 30))}
${table(
  "Most used platforms and ops (last 30 days)",
  ["Platform", "Op", "Calls", "Credits"],
  totalsBy(rows, (r) => `${r.platform} ${r.op}`)
    .slice(0, 10)
    .map(([k, v]) => [...k.split(" "), v.calls, v.credits])
)}`,
    chrome
  )

const stateOf = (k: KeyStore.StoredKey, now: DateTime.Utc) =>
  Option.isSome(k.revokedAt)
    ? "revoked"
    : Option.isSome(k.expiresAt) && !DateTime.lessThan(now, k.expiresAt.value)
      ? "expired"
      : "active"

/** The keys page; `created` is the one time a full key is shown. */
export const keys = (
  chrome: Chrome,
  list: ReadonlyArray<KeyStore.StoredKey>,
  now: DateTime.Utc,
  extra: { readonly created?: { readonly name: string; readonly key: string }; readonly error?: string } = {}
) =>
  layout(
    "API keys",
    html`${
      extra.created === undefined
        ? ""
        : html`<section aria-labelledby="new-key-title" class="notice warning">
<h2 id="new-key-title">Your new key "${extra.created.name}"</h2>
<p><strong>Copy it now: it is shown only this once and cannot be shown again.</strong> Only its digest is stored.</p>
<p id="new-key" class="secret">${extra.created.key}</p>
<p><button type="button" data-copy="new-key">Copy key</button></p>
</section>`
    }
${extra.error === undefined ? "" : notice("error", extra.error)}
<h2>Create a key</h2>
<form method="post" action="/dashboard/keys">
${csrfField(chrome.csrf)}
<label for="name">Name</label><input id="name" name="name" required maxlength="100">
<label for="expires">Expires (optional)</label><input id="expires" name="expires" type="date">
<p><button type="submit">Create key</button></p>
</form>
${table(
  "Keys of this account",
  ["Name", "Prefix", "Created", "Expires", "Last used", "Calls", "Credits spent", "State", ""],
  list.map((k) => {
    const state = stateOf(k, now)
    return [
      k.name,
      html`<code>${k.prefix}…</code>`,
      instant(k.createdAt),
      Option.match(k.expiresAt, { onNone: () => "never", onSome: instant }),
      maybe(k.lastUsedAt),
      k.calls,
      k.creditsSpent,
      state,
      state === "revoked" ? "" : html`<a href="/dashboard/keys/${k.id}/revoke" aria-label="Revoke ${k.name}">Revoke</a>`
    ]
  })
)}`,
    chrome
  )

/** The confirmation before a revocation. */
export const confirmRevoke = (chrome: Chrome, key: KeyStore.StoredKey) =>
  layout(
    "Revoke a key",
    html`${notice("warning", `Revoke the key "${key.name}" (${key.prefix}…)? Calls made with it are refused from the very next one on. This cannot be undone.`)}
<form method="post" action="/dashboard/keys/${key.id}/revoke">
${csrfField(chrome.csrf)}
<p><button type="submit" class="danger">Revoke key</button> <a href="/dashboard/keys">Cancel</a></p>
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
  "By day",
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

/** The ledger page, newest first, with a link to older entries. */
export const ledger = (chrome: Chrome, entries: ReadonlyArray<Ledger.LedgerEntry>, pageSize: number) =>
  layout(
    "Ledger",
    html`${table(
      "Grants and charges, newest first",
      ["When", "Kind", "Credits", "Reason", "Key"],
      entries.map((e) => [instant(e.at), e.kind === "grant" ? "grant" : "charge", e.credits, e.reason, e.keyId ?? ""])
    )}
<p><a href="/dashboard/ledger">Newest</a>${
      entries.length === pageSize
        ? html` · <a href="/dashboard/ledger?before=${entries[entries.length - 1]?.id}">Older entries</a>`
        : ""
    }</p>`,
    chrome
  )

/** The members page: the list for everyone, management for owners. */
export const members = (
  chrome: Chrome,
  list: ReadonlyArray<MemberStore.Member>,
  self: string,
  extra: { readonly invited?: { readonly email: string; readonly link: string }; readonly error?: string } = {}
) => {
  const owner = chrome.role === "owner"
  const roleForm = (m: MemberStore.Member): Raw =>
    html`<form method="post" action="/dashboard/members/${m.id}/role" class="inline">${csrfField(chrome.csrf)}
<label for="role-${m.id}" class="visually-hidden">Role of ${m.email}</label>
<select id="role-${m.id}" name="role">${(["owner", "member"] as const).map(
      (r) => html`<option value="${r}"${r === m.role ? html` selected` : ""}>${r}</option>`
    )}</select> <button type="submit">Change role</button></form>
<form method="post" action="/dashboard/members/${m.id}/remove" class="inline">${csrfField(chrome.csrf)}
<button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button></form>`
  return layout(
    "Members",
    html`${extra.error === undefined ? "" : notice("error", extra.error)}
${
  extra.invited === undefined
    ? ""
    : html`<section class="notice info" aria-labelledby="invite-title"><h2 id="invite-title">Invitation for ${extra.invited.email}</h2>
<p>Send this one-time sign-up link to them (there is no mail server); it is shown only now:</p>
<p id="invite-link" class="secret">${extra.invited.link}</p>
<p><button type="button" data-copy="invite-link">Copy link</button></p></section>`
}
${
  owner
    ? html`<h2>Invite a member</h2>
<form method="post" action="/dashboard/members/invite">${csrfField(chrome.csrf)}
<label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required>
<label for="invite-role">Role</label><select id="invite-role" name="role"><option value="member">member</option><option value="owner">owner</option></select>
<p><button type="submit">Create invitation link</button></p></form>`
    : notice("info", "Only owners manage members.")
}
<h2>Your password</h2>
<p>Changing it signs you out everywhere, this browser included.</p>
<form method="post" action="/dashboard/password">${csrfField(chrome.csrf)}
<input type="text" name="username" autocomplete="username" value="${chrome.email}" hidden>
<label for="current-password">Current password</label><input id="current-password" name="current" type="password" autocomplete="current-password" required>
<label for="new-password">New password</label><input id="new-password" name="next" type="password" autocomplete="new-password" minlength="10" required>
<p><button type="submit">Change password</button></p></form>
${table(
  "Members of this account",
  owner ? ["Email", "Role", "Since", "Manage"] : ["Email", "Role", "Since"],
  list.map((m) => {
    const cells: Array<unknown> = [m.id === self ? `${m.email} (you)` : m.email, m.role, day(m.createdAt)]
    if (owner) cells.push(roleForm(m))
    return cells
  })
)}`,
    chrome
  )
}

/** The catalogue as published (prices, windows, availability are the catalogue's own). */
export const catalogue = (chrome: Chrome, published: ReturnType<typeof Catalogue.publish>) =>
  layout(
    "Catalogue",
    html`${published.map((p) =>
      table(
        `${p.platform}: ${p.description}`,
        ["Op", "Price rule", "Starting price (credits)", "Freshness window", "Available"],
        p.ops.map((o) => [
          o.op,
          o.price.rule,
          o.price.startingPrice,
          o.freshnessSeconds === null ? "always fetched" : `${o.freshnessSeconds} s`,
          o.available ? "yes" : "no"
        ])
      )
    )}`,
    chrome
  )
