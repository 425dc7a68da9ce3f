/** HTML for the dashboard: escaping, the page layout, and small building blocks. */

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Text escaped for HTML content and attribute values. */
export const escapeHtml = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => entities[c] ?? c)

/** A tagged template that escapes every interpolated value unless it is already `Raw`. */
export class Raw {
  constructor(readonly html: string) {}
  toString() {
    return this.html
  }
}

/** HTML that is inserted as it is. */
export const raw = (html: string) => new Raw(html)

/** Builds HTML, escaping interpolations (arrays are joined, `Raw` kept, undefined/null/false dropped). */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): Raw => {
  const part = (v: unknown): string =>
    v instanceof Raw
      ? v.html
      : Array.isArray(v)
        ? v.map(part).join("")
        : v === undefined || v === null || v === false
          ? ""
          : escapeHtml(v)
  return raw(strings.reduce((out, s, i) => out + s + (i < values.length ? part(values[i]) : ""), ""))
}

/** Where a signed-in page sits in the navigation. */
export type Section = "overview" | "keys" | "usage" | "ledger" | "members" | "audit" | "catalogue"

const sections: ReadonlyArray<readonly [Section, string, string]> = [
  ["overview", "Overview", "/dashboard"],
  ["keys", "API keys", "/dashboard/keys"],
  ["usage", "Usage", "/dashboard/usage"],
  ["ledger", "Ledger", "/dashboard/ledger"],
  ["members", "Members", "/dashboard/members"],
  ["audit", "Audit log", "/dashboard/audit"],
  ["catalogue", "Catalogue", "/dashboard/catalogue"]
]

/** The signed-in part of a page: who, the navigation, sign-out. */
export interface Chrome {
  readonly section: Section
  readonly email: string
  readonly role: string
  readonly csrf: string
  /** A banner on every page (the low-balance warning). */
  readonly banner?: string | undefined
}

/** A whole page. */
export const layout = (title: string, body: Raw, chrome?: Chrome): string =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorStyles":false}'>
<title>${title} · Platform Data API</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/htmx.min.js" defer></script>
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
<header>
<p class="brand">Platform Data API</p>
${
  chrome === undefined
    ? ""
    : html`<nav aria-label="Dashboard" hx-boost="true"><ul>${sections.map(
        ([id, label, href]) =>
          html`<li><a href="${href}"${raw(id === chrome.section ? ' aria-current="page"' : "")}>${label}</a></li>`
      )}</ul></nav>
<form method="post" action="/dashboard/sign-out" class="signout">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<span>${chrome.email} (${chrome.role})</span> <button type="submit">Sign out</button>
</form>`
}
</header>
<main>
${chrome?.banner === undefined ? "" : html`<p class="notice warning banner" role="status">${chrome.banner} <a href="/dashboard#alerts">Alert settings</a></p>`}
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.html

/** A notice (role=alert for errors). */
export const notice = (kind: "error" | "info" | "warning", text: unknown) =>
  html`<p class="notice ${kind}"${raw(kind === "error" ? ' role="alert"' : "")}>${text}</p>`

let tableCount = 0

/**
 * A table with a caption, header cells and rows of cells, in a box that scrolls on its own when the page is narrower
 * than the table (the page itself never scrolls sideways); the box is focusable so a keyboard can scroll it.
 */
export const table = (caption: string, head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>) => {
  const id = `table-${++tableCount}`
  return html`<div class="table-box" role="region" aria-labelledby="${id}" tabindex="0"><table><caption id="${id}">${caption}</caption><thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${
    rows.length === 0
      ? html`<tr><td colspan="${head.length}">Nothing yet.</td></tr>`
      : rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)
  }</tbody></table></div>`
}

/** Field values and messages of a form being shown again. */
export interface FormState {
  readonly values?: Readonly<Record<string, string>>
  readonly errors?: Readonly<Record<string, string>>
}

/**
 * A labelled input; with an error, the message sits right below it (`aria-describedby`) and the field is marked
 * invalid; the value given is kept (never for passwords).
 */
export const field = (
  form: FormState,
  name: string,
  label: string,
  attributes: { readonly id?: string; readonly type?: string; readonly extra?: string; readonly hint?: string } = {}
) => {
  const id = attributes.id ?? name
  const error = form.errors?.[name]
  const type = attributes.type ?? "text"
  const value = type === "password" ? undefined : form.values?.[name]
  const described = [attributes.hint === undefined ? "" : `${id}-hint`, error === undefined ? "" : `${id}-error`]
    .filter((x) => x !== "")
    .join(" ")
  return html`<label for="${id}">${label}</label>${
    attributes.hint === undefined ? "" : html`<p class="hint" id="${id}-hint">${attributes.hint}</p>`
  }<input id="${id}" name="${name}" type="${type}"${value === undefined ? "" : html` value="${value}"`}${
    described === "" ? "" : html` aria-describedby="${described}"`
  }${error === undefined ? "" : raw(' aria-invalid="true"')}${raw(attributes.extra === undefined ? "" : ` ${attributes.extra}`)}>${
    error === undefined ? "" : html`<p class="field-error" id="${id}-error">${label}: ${error}</p>`
  }`
}

/** A hidden CSRF field. */
export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`

/** An inline SVG bar chart of values per label (e.g. credits per day), with a text alternative. */
export const barChart = (title: string, points: ReadonlyArray<readonly [string, number]>) => {
  // a narrow viewBox: at 390 px wide the labels are still drawn at about 12 px
  const width = 360
  const height = 120
  const max = Math.max(1, ...points.map(([, v]) => v))
  const bar = points.length === 0 ? 0 : width / points.length
  const total = points.reduce((s, [, v]) => s + v, 0)
  return html`<figure>
<svg role="img" aria-labelledby="chart-title" viewBox="0 0 ${width} ${height + 22}" width="100%" class="chart">
<title id="chart-title">${title}: ${total} in total</title>
${points.map(([label, v], i) => {
  const h = Math.round((v / max) * height)
  return html`<rect x="${(i * bar + 1).toFixed(1)}" y="${height - h}" width="${Math.max(1, bar - 2).toFixed(1)}" height="${h}"><title>${label}: ${v}</title></rect>`
})}
<line x1="0" y1="${height}" x2="${width}" y2="${height}" class="axis"></line>
<text x="0" y="${height + 18}">${points[0]?.[0] ?? ""}</text>
<text x="${width}" y="${height + 18}" text-anchor="end">${points[points.length - 1]?.[0] ?? ""}</text>
</svg>
<figcaption>${title}</figcaption>
</figure>`
}
