// What the tests of spawned server processes share: a fresh schema on the PostgreSQL server for one test, and an
// operator call (the admin listener's POST) on a spawned server.
import * as Testing from "@pdr/store-pg/Testing"
import { Effect, Exit, Scope } from "effect"

/** A fresh schema of the PostgreSQL server (its `url` names it), dropped by `close`. */
export const withSchema = async () => {
  const scope = Effect.runSync(Scope.make())
  const target = await Effect.runPromise(Scope.extend(Testing.freshServerSchema(), scope))
  if (target._tag !== "Server") throw new Error("expected a server target")
  return { url: target.url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** An operator POST on a spawned server's admin listener, its JSON answer. */
export const adminCall = async (s: { readonly admin: string; readonly token: string }, path: string, body: unknown) => {
  const r = await fetch(`${s.admin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return (await r.json()) as any
}
