/**
 * The operator API contract (D6): accounts, credits, keys, holds, tracked entities and member invitations under
 * `/admin`, on the operator listener, behind `Authorization: Bearer <operator token>`. API keys reach none of it. Its
 * own OpenAPI document is served there.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import { CoverageItem } from "./Api.js"
import { wire } from "./Failure.js"

/** Unknown body fields are refused (400), not dropped. */
const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** The operator token check: answers 401 `unauthorized` without a valid `Authorization: Bearer <token>`. */
export class OperatorAuth extends HttpApiMiddleware.Tag<OperatorAuth>()("@pdr/http-api/OperatorAuth", {
  failure: wire.Unauthorized,
  security: { operator: HttpApiSecurity.bearer }
}) {}

/** An account (an org) with its credits. */
export const Account = Schema.Struct({
  accountId: Schema.String,
  name: Schema.String,
  balance: Schema.Number,
  held: Schema.Number,
  spendable: Schema.Number,
  createdAt: Schema.String
}).annotations({ identifier: "Account" })

/** A hold on an account's credits (D8). */
export const Hold = Schema.Struct({
  holdId: Schema.String,
  keyId: Schema.NullOr(Schema.String),
  amount: Schema.Number,
  expiresAt: Schema.String
}).annotations({ identifier: "Hold" })

/** A ledger entry. */
export const LedgerEntry = Schema.Struct({
  id: Schema.Number,
  kind: Schema.Literal("grant", "capture"),
  credits: Schema.Number,
  reason: Schema.String,
  keyId: Schema.NullOr(Schema.String),
  at: Schema.String
}).annotations({ identifier: "LedgerEntry" })

/** An account with its active holds and recent ledger. */
export const AccountDetail = Schema.Struct({
  ...Account.fields,
  holds: Schema.Array(Hold),
  ledger: Schema.Array(LedgerEntry)
}).annotations({ identifier: "AccountDetail" })

/** An API key as stored: never the key itself (D6). */
export const Key = Schema.Struct({
  keyId: Schema.String,
  accountId: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  createdAt: Schema.String,
  expiresAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String),
  lastUsedAt: Schema.NullOr(Schema.String),
  calls: Schema.Number,
  creditsSpent: Schema.Number
}).annotations({ identifier: "Key" })

/** A new key: the only answer that carries the full key. */
export const CreatedKey = Schema.Struct({ ...Key.fields, key: Schema.String }).annotations({ identifier: "CreatedKey" })

/** `POST /admin/accounts`. */
export const CreateAccount = Schema.Struct({
  name: Schema.String,
  credits: Schema.optional(Schema.Number)
}).annotations({ identifier: "CreateAccount", ...strict })

/** `POST /admin/accounts/:accountId/credits`. */
export const Grant = Schema.Struct({ credits: Schema.Number, reason: Schema.String }).annotations({
  identifier: "Grant",
  ...strict
})

/** `POST /admin/accounts/:accountId/keys`; `expires` is an ISO-8601 date. */
export const CreateKey = Schema.Struct({ name: Schema.String, expires: Schema.optional(Schema.String) }).annotations({
  identifier: "CreateKey",
  ...strict
})

const AccountPath = Schema.Struct({ accountId: Schema.String })

/** Accounts: create, list, show. */
export class AccountsGroup extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.post("create", "/admin/accounts")
      .setPayload(CreateAccount)
      .addSuccess(Account, { status: 201 })
      .addError(wire.InvalidRequest)
      .annotate(OpenApi.Summary, "Create an account (an org), optionally with credits")
  )
  .add(
    HttpApiEndpoint.get("list", "/admin/accounts")
      .addSuccess(Schema.Struct({ accounts: Schema.Array(Account) }))
      .annotate(OpenApi.Summary, "Every account with balance and held credits")
  )
  .add(
    HttpApiEndpoint.get("show", "/admin/accounts/:accountId")
      .setPath(AccountPath)
      .addSuccess(AccountDetail)
      .addError(wire.NotFound)
      .annotate(OpenApi.Summary, "Balance, active holds and recent ledger of an account")
  )
  .middleware(OperatorAuth) {}

/** Credits: grants. */
export class CreditsGroup extends HttpApiGroup.make("credits")
  .add(
    HttpApiEndpoint.post("grant", "/admin/accounts/:accountId/credits")
      .setPath(AccountPath)
      .setPayload(Grant)
      .addSuccess(Account)
      .addError(wire.InvalidRequest)
      .addError(wire.NotFound)
      .annotate(OpenApi.Summary, "Grant credits to an account, with a reason kept in its ledger")
  )
  .middleware(OperatorAuth) {}

/** API keys: create, list, revoke. */
export class KeysGroup extends HttpApiGroup.make("keys")
  .add(
    HttpApiEndpoint.post("create", "/admin/accounts/:accountId/keys")
      .setPath(AccountPath)
      .setPayload(CreateKey)
      .addSuccess(CreatedKey, { status: 201 })
      .addError(wire.InvalidRequest)
      .addError(wire.NotFound)
      .annotate(OpenApi.Summary, "Create a key; the answer is the only place the full key is shown")
  )
  .add(
    HttpApiEndpoint.get("list", "/admin/accounts/:accountId/keys")
      .setPath(AccountPath)
      .addSuccess(Schema.Struct({ keys: Schema.Array(Key) }))
      .addError(wire.NotFound)
      .annotate(OpenApi.Summary, "An account's keys: prefix, name, dates, calls and credits spent")
  )
  .add(
    HttpApiEndpoint.post("revoke", "/admin/keys/:keyId/revoke")
      .setPath(Schema.Struct({ keyId: Schema.String }))
      .addSuccess(
        Schema.Struct({ keyId: Schema.String, revoked: Schema.Literal(true), alreadyRevoked: Schema.Boolean })
      )
      .addError(wire.NotFound)
      .annotate(OpenApi.Summary, "Revoke a key, immediately and irreversibly")
  )
  .middleware(OperatorAuth) {}

/** Holds: the sweep of expired holds (D8). */
export class HoldsGroup extends HttpApiGroup.make("holds")
  .add(
    HttpApiEndpoint.post("sweep", "/admin/holds/sweep")
      .addSuccess(Schema.Struct({ released: Schema.Number }))
      .annotate(OpenApi.Summary, "Release the holds past their expiry now")
  )
  .middleware(OperatorAuth) {}

/** An op request, as the public API takes it (`{ op, subjects | subject, ... }`). */
const OpRequest = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A tracked entity of the nightly refresh: a canonical subject of an op, with the request that measures it. */
export const Tracked = Schema.Struct({
  platform: Schema.String,
  op: Schema.String,
  subject: Schema.String,
  request: OpRequest,
  pinned: Schema.Boolean,
  demandedAt: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Tracked" })

/** `POST /admin/tracked`: pin every subject of an op request of a platform. */
export const TrackAdd = Schema.Struct({ platform: Schema.String, request: OpRequest }).annotations({
  identifier: "TrackAdd",
  ...strict
})

/** `POST /admin/tracked/remove`: unpin a canonical subject of a platform. */
export const TrackRemove = Schema.Struct({ platform: Schema.String, subject: Schema.String }).annotations({
  identifier: "TrackRemove",
  ...strict
})

const TrackedList = Schema.Struct({ tracked: Schema.Array(Tracked) })

/** Tracked entities (the nightly refresh's list): pin, unpin, list. */
export class TrackedGroup extends HttpApiGroup.make("tracked")
  .add(
    HttpApiEndpoint.post("add", "/admin/tracked")
      .setPayload(TrackAdd)
      .addSuccess(TrackedList, { status: 201 })
      .addError(wire.InvalidRequest)
      .addError(wire.UpstreamFailed)
      .annotate(OpenApi.Summary, "Pin the subjects of an op request for the nightly refresh")
  )
  .add(
    HttpApiEndpoint.post("remove", "/admin/tracked/remove")
      .setPayload(TrackRemove)
      .addSuccess(Schema.Struct({ removed: Schema.Number }))
      .annotate(OpenApi.Summary, "Unpin a canonical subject of a platform; answers how many entries were unpinned")
  )
  .add(
    HttpApiEndpoint.get("list", "/admin/tracked")
      .setUrlParams(Schema.Struct({ pinned: Schema.optional(Schema.BooleanFromString) }))
      .addSuccess(TrackedList)
      .addError(wire.InvalidRequest)
      .annotate(OpenApi.Summary, "Tracked entities: pinned only (`pinned=true`), or pinned and recently demanded")
  )
  .middleware(OperatorAuth) {}

/** `POST /admin/accounts/:accountId/members/invitations`; the role defaults to owner. */
export const InviteMember = Schema.Struct({
  email: Schema.String,
  role: Schema.optional(Schema.Literal("owner", "member"))
}).annotations({ identifier: "InviteMember", ...strict })

/** A one-time invitation: the sign-up path carries its token, shown only here. */
export const Invitation = Schema.Struct({
  email: Schema.String,
  role: Schema.Literal("owner", "member"),
  expiresAt: Schema.String,
  signUpPath: Schema.String
}).annotations({ identifier: "Invitation" })

/** `POST /admin/members/resets`: a one-time password reset link for the member with this email (issue 24). */
export const ResetMember = Schema.Struct({ email: Schema.String }).annotations({ identifier: "ResetMember", ...strict })

/** A one-time password reset: the path carries its token, shown only here. */
export const PasswordReset = Schema.Struct({
  email: Schema.String,
  expiresAt: Schema.String,
  resetPath: Schema.String
}).annotations({ identifier: "PasswordReset" })

/** Members of an account's dashboard (D20): the operator's invitation and password reset. */
export class MembersGroup extends HttpApiGroup.make("members")
  .add(
    HttpApiEndpoint.post("invite", "/admin/accounts/:accountId/members/invitations")
      .setPath(AccountPath)
      .setPayload(InviteMember)
      .addSuccess(Invitation, { status: 201 })
      .addError(wire.InvalidRequest)
      .addError(wire.NotFound)
      .addError(wire.Conflict)
      .annotate(OpenApi.Summary, "Invite a member (owner by default); the answer carries the one-time sign-up path")
  )
  .add(
    HttpApiEndpoint.post("reset", "/admin/members/resets")
      .setPayload(ResetMember)
      .addSuccess(PasswordReset, { status: 201 })
      .addError(wire.InvalidRequest)
      .addError(wire.NotFound)
      .annotate(
        OpenApi.Summary,
        "A one-time password reset link for a member, by email (valid one hour; using it ends every session of theirs)"
      )
  )
  .middleware(OperatorAuth) {}

/** Drops the `$id` that every `Schema.Unknown` carries (repeated, it makes the document invalid 3.1). */
const withoutIds = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutIds)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (k === "$id" ? [] : [[k, withoutIds(v)]])))
      : value

/** The schemas the error family's `details` refer to (`upstream_failed` lists coverage items). */
const referenced = (() => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  JSONSchema.fromAST(CoverageItem.ast, { definitions, definitionPath: "#/components/schemas/", target: "openApi3.1" })
  return definitions
})()

/** The document as served: no repeated `$id`, and the listener that serves it as its server. */
const finish = (spec: Record<string, unknown>): Record<string, unknown> => {
  const components = (spec["components"] ?? {}) as Record<string, unknown>
  return {
    ...(withoutIds(spec) as Record<string, unknown>),
    components: withoutIds({
      ...components,
      schemas: { ...referenced, ...(components["schemas"] as Record<string, unknown>) }
    }),
    servers: [{ url: "/", description: "the operator listener (ADMIN_HOST:ADMIN_PORT, loopback by default)" }]
  }
}

/** The operator API. */
export class AdminApi extends HttpApi.make("pdr-admin")
  .add(AccountsGroup)
  .add(CreditsGroup)
  .add(KeysGroup)
  .add(HoldsGroup)
  .add(TrackedGroup)
  .add(MembersGroup)
  .addError(wire.Internal)
  .annotate(OpenApi.Transform, finish)
  .annotate(OpenApi.Title, "Platform Data Retrieval API: operator")
  .annotate(
    OpenApi.Description,
    "Accounts, credits, keys, holds, tracked entities and member invitations, on the operator listener only, with the operator token."
  ) {}
