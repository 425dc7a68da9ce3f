/** The dashboard's static files, served by the server itself: htmx from its npm package, our CSS and script. */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

const css = `
:root { font-family: system-ui, sans-serif; color: #1a1a1a; background: #fff; }
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; overflow-wrap: break-word; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .5rem 1rem; background: #12355b; color: #fff; }
header a, header .brand { color: #fff; }
.brand { font-weight: 700; margin: 0; }
nav { max-width: 100%; }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem .9rem; list-style: none; margin: 0; padding: 0; }
nav a { display: inline-block; padding: .25rem 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
.signout { margin-left: auto; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
main { padding: 1rem; max-width: 72rem; }
.table-box { position: relative; max-width: 100%; overflow-x: auto; margin: 1rem 0; }
.table-box:focus-visible { outline: 3px solid #12355b; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border-bottom: 1px solid #ccc; padding: .35rem .5rem; text-align: left; vertical-align: top; }
th, td { white-space: nowrap; }
.long { display: inline-block; min-width: 14rem; white-space: normal; }
form.inline { display: inline; }
label { display: block; margin: .5rem 0 .2rem; }
input, select, button { font: inherit; padding: .3rem .5rem; max-width: 100%; }
input[type="text"], input[type="email"], input[type="password"], input[type="number"], input:not([type]) { width: 22rem; }
.hint { margin: 0 0 .2rem; color: #444; font-size: .9rem; }
.field-error { margin: .2rem 0; color: #8b0f14; font-weight: 600; }
input[aria-invalid="true"] { border: 2px solid #a4161a; }
button { background: #12355b; color: #fff; border: 1px solid #12355b; border-radius: 4px; cursor: pointer; }
button.danger { background: #a4161a; border-color: #a4161a; }
.notice { padding: .6rem .8rem; border-radius: 4px; border: 1px solid; }
.notice.error { background: #fde8e8; border-color: #a4161a; color: #6b0f12; }
.notice.warning { background: #fff4d6; border-color: #8a5a00; color: #4a3000; }
.notice.info { background: #e6f0fb; border-color: #12355b; }
.secret, pre { font-family: ui-monospace, monospace; background: #f3f3f3; padding: .4rem; }
.secret { font-size: 1.05rem; word-break: break-all; }
pre { white-space: pre-wrap; word-break: break-all; }
.stats { display: flex; flex-wrap: wrap; gap: 1rem 2rem; list-style: none; padding: 0; }
.stats strong { display: block; font-size: 1.6rem; }
.steps li { margin: .5rem 0; }
figure { margin: 1rem 0; }
.chart { max-width: 40rem; height: auto; }
.chart rect { fill: #12355b; }
.chart .axis { stroke: #555; }
.chart text { font-size: 14px; fill: #333; }
.visually-hidden { position: absolute; top: 0; left: 0; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
@media (max-width: 40rem) {
  header { padding: .5rem; }
  .signout { margin-left: 0; }
  main { padding: .75rem; }
  h1 { font-size: 1.5rem; }
}
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
