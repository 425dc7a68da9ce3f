/** The dashboard's static files, served by the server itself: htmx from its npm package, our CSS and script. */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

const css = `
:root { font-family: system-ui, sans-serif; color: #1a1a1a; background: #fff; }
body { margin: 0; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: .5rem 1rem; background: #12355b; color: #fff; }
header a, header .brand { color: #fff; }
.brand { font-weight: 700; margin: 0; }
nav ul { display: flex; gap: .75rem; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
.signout { margin-left: auto; display: flex; gap: .5rem; align-items: center; }
main { padding: 1rem; max-width: 72rem; }
table { border-collapse: collapse; margin: 1rem 0; width: 100%; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border-bottom: 1px solid #ccc; padding: .35rem .5rem; text-align: left; }
form.inline { display: inline; }
label { display: block; margin: .5rem 0 .2rem; }
input, select, button { font: inherit; padding: .3rem .5rem; }
button { background: #12355b; color: #fff; border: 1px solid #12355b; border-radius: 4px; cursor: pointer; }
button.danger { background: #a4161a; border-color: #a4161a; }
.notice { padding: .6rem .8rem; border-radius: 4px; border: 1px solid; }
.notice.error { background: #fde8e8; border-color: #a4161a; color: #6b0f12; }
.notice.warning { background: #fff4d6; border-color: #8a5a00; color: #4a3000; }
.notice.info { background: #e6f0fb; border-color: #12355b; }
.secret { font-family: ui-monospace, monospace; font-size: 1.05rem; background: #f3f3f3; padding: .4rem; word-break: break-all; }
.stats { display: flex; gap: 2rem; list-style: none; padding: 0; }
.stats strong { display: block; font-size: 1.6rem; }
.chart rect { fill: #12355b; }
.chart .axis { stroke: #555; }
.chart text { font-size: 12px; fill: #333; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`

const script = `
document.addEventListener("click", function (event) {
  var button = event.target.closest ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    button.textContent = "Copied";
  });
});
`

const resolveFrom = createRequire(import.meta.url)

/** The files by name, with their content types; htmx is read once from its installed package. */
export const load = (): ReadonlyMap<string, { readonly type: string; readonly body: string }> =>
  new Map([
    [
      "htmx.min.js",
      {
        type: "text/javascript; charset=utf-8",
        body: readFileSync(resolveFrom.resolve("htmx.org/dist/htmx.min.js"), "utf8")
      }
    ],
    ["dashboard.css", { type: "text/css; charset=utf-8", body: css }],
    ["dashboard.js", { type: "text/javascript; charset=utf-8", body: script }]
  ])
