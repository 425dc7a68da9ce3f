/** Key authentication as an HttpApi middleware that provides the caller to handlers (D6). */
import { HttpApiMiddleware } from "@effect/platform"
import { Context, Schema } from "effect"
import { wire } from "./Failure.js"

/** The authenticated caller: the account and key a request is made with. */
export class CurrentCaller extends Context.Tag("@pdr/http-api/CurrentCaller")<
  CurrentCaller,
  { readonly accountId: string; readonly keyId: string; readonly prefix: string }
>() {}

/**
 * Reads `X-API-Key` or `Authorization: Bearer`; answers 401 `unauthorized` for any invalid key, and 429
 * `rate_limited` past the key's rate limit or past the failed-authentication limit of the client address.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@pdr/http-api/Authentication", {
  failure: Schema.Union(wire.Unauthorized, wire.RateLimited),
  provides: CurrentCaller
}) {}
