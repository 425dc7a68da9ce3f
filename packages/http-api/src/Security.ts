/** Key authentication as an HttpApi middleware that provides the caller to handlers (D6). */
import { HttpApiMiddleware } from "@effect/platform"
import { Context } from "effect"
import { Unauthorized } from "./Errors.js"

/** The authenticated caller: the account and key a request is made with. */
export class CurrentCaller extends Context.Tag("@pdr/http-api/CurrentCaller")<
  CurrentCaller,
  { readonly accountId: string; readonly keyId: string; readonly prefix: string }
>() {}

/** Reads `X-API-Key` or `Authorization: Bearer`; answers 401 `unauthorized` for any invalid key. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@pdr/http-api/Authentication", {
  failure: Unauthorized,
  provides: CurrentCaller
}) {}
