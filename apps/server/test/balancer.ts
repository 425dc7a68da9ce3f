// A loopback load balancer for two server instances (issue 22): each request goes to the next instance in turn, its
// body and answer piped through unchanged. Used by the two-instance test and the bench.
import { createServer, request } from "node:http"

/** A round-robin balancer over `targets` (base URLs on loopback); `served` counts the requests each one got. */
export const balancer = async (targets: ReadonlyArray<string>) => {
  let next = 0
  const served = targets.map(() => 0)
  const server = createServer((req, res) => {
    const i = next++ % targets.length
    served[i]!++
    const target = new URL(req.url ?? "/", targets[i])
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(upstream)
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
