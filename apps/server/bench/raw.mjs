// (a0) the ceiling of this machine: a raw node:http server answering a small JSON POST.
import { createServer } from "node:http"

createServer((req, res) => {
  let body = ""
  req.on("data", (c) => (body += c))
  req.on("end", () => {
    const n = JSON.parse(body).n
    const out = JSON.stringify({ ok: true, n })
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) })
    res.end(out)
  })
}).listen(Number(process.env.PORT), "127.0.0.1")
