/**
 * The Effect clients, derived from the HttpApi contracts of @pdr/http-api: requests, answers and errors are the
 * contract's own Schemas, so they are exactly as precise as the contract. They need an `HttpClient`
 * (`FetchHttpClient.layer` or `NodeHttpClient.layer`).
 */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { AdminApi, Api } from "@pdr/http-api"
import { Context, Effect, Layer, Redacted } from "effect"

/** How to reach the public API. */
export interface Options {
  /** e.g. `http://127.0.0.1:8080` */
  readonly baseUrl: string
  readonly apiKey: string | Redacted.Redacted<string>
}

/** How to reach the operator API. */
export interface AdminOptions {
  /** e.g. `http://127.0.0.1:8081` */
  readonly baseUrl: string
  readonly token: string | Redacted.Redacted<string>
}

const reveal = (s: string | Redacted.Redacted<string>) => (Redacted.isRedacted(s) ? Redacted.value(s) : s)

/** The public API's client, with the key set once on every request. */
export const make = (options: Options) =>
  HttpApiClient.make(Api.Api, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", reveal(options.apiKey)))
  })

/** The client `make` builds: `client.catalogue.platforms()`, `client.ops.call(...)`, `client.ops.balance()`. */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>

/** The public API's client as a service. */
export class PdrClient extends Context.Tag("@pdr/client/PdrClient")<PdrClient, Client>() {}

/** Provides `PdrClient` over the `HttpClient` it is given. */
export const layer = (options: Options) => Layer.effect(PdrClient, make(options))

/** The operator API's client, with the operator token set once on every request. */
export const makeAdmin = (options: AdminOptions) =>
  HttpApiClient.make(AdminApi.AdminApi, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(reveal(options.token)))
  })

/** The client `makeAdmin` builds: `admin.accounts.create(...)`, `admin.keys.revoke(...)`, ... */
export type AdminClient = Effect.Effect.Success<ReturnType<typeof makeAdmin>>

/** The operator API's client as a service. */
export class PdrAdminClient extends Context.Tag("@pdr/client/PdrAdminClient")<PdrAdminClient, AdminClient>() {}

/** Provides `PdrAdminClient` over the `HttpClient` it is given. */
export const adminLayer = (options: AdminOptions) => Layer.effect(PdrAdminClient, makeAdmin(options))
