/**
 * The account dashboard (D20): server-rendered pages and the form posts they send, under `/dashboard`, authenticated
 * by a session cookie (never by an API key). Every answer is HTML (or CSV, or a redirect); the group is left out of
 * the public OpenAPI document.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

/** An HTML page. */
export const Html = HttpApiSchema.Text({ contentType: "text/html" })

/** A form post: every state-changing request carries the session's CSRF token (sign-in and sign-up excepted). */
const Form = <F extends Schema.Struct.Fields>(fields: F) => Schema.Struct(fields)

const csrf = { csrf: Schema.String }

const page = <N extends string>(name: N, path: `/${string}`) => HttpApiEndpoint.get(name, path).addSuccess(Html)

const keyPath = Schema.Struct({ keyId: Schema.String })
const memberPath = Schema.Struct({ memberId: Schema.String })
const invitationPath = Schema.Struct({ invitationId: Schema.String })
const optional = Schema.optional(Schema.String)

/** The dashboard group. */
export class DashboardGroup extends HttpApiGroup.make("dashboard")
  .add(page("overview", "/dashboard"))
  .add(page("signInPage", "/dashboard/sign-in").setUrlParams(Schema.Struct({ reason: optional })))
  .add(
    HttpApiEndpoint.post("signIn", "/dashboard/sign-in")
      .setPayload(Form({ email: Schema.String, password: Schema.String }))
      .addSuccess(Html)
  )
  .add(HttpApiEndpoint.post("signOut", "/dashboard/sign-out").setPayload(Form(csrf)).addSuccess(Html))
  .add(page("signUpPage", "/dashboard/sign-up").setUrlParams(Schema.Struct({ token: Schema.optional(Schema.String) })))
  .add(
    HttpApiEndpoint.post("signUp", "/dashboard/sign-up")
      .setPayload(Form({ token: Schema.String, password: Schema.String }))
      .addSuccess(Html)
  )
  .add(page("forgotPage", "/dashboard/forgot").setUrlParams(Schema.Struct({ sent: optional })))
  .add(
    HttpApiEndpoint.post("forgot", "/dashboard/forgot")
      .setPayload(Form({ email: Schema.String }))
      .addSuccess(Html)
  )
  .add(page("resetPage", "/dashboard/reset").setUrlParams(Schema.Struct({ token: optional })))
  .add(
    HttpApiEndpoint.post("reset", "/dashboard/reset")
      .setPayload(Form({ token: Schema.String, password: Schema.String }))
      .addSuccess(Html)
  )
  .add(page("keys", "/dashboard/keys"))
  .add(
    HttpApiEndpoint.post("createKey", "/dashboard/keys")
      .setPayload(Form({ ...csrf, name: Schema.String, expires: optional, limit: optional }))
      .addSuccess(Html)
  )
  .add(page("keyCreated", "/dashboard/keys/created").setUrlParams(Schema.Struct({ ticket: optional })))
  .add(page("keyPage", "/dashboard/keys/:keyId").setPath(keyPath))
  .add(
    HttpApiEndpoint.post("renameKey", "/dashboard/keys/:keyId/rename")
      .setPath(keyPath)
      .setPayload(Form({ ...csrf, name: Schema.String }))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("limitKey", "/dashboard/keys/:keyId/limit")
      .setPath(keyPath)
      .setPayload(Form({ ...csrf, limit: optional }))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("rollKey", "/dashboard/keys/:keyId/roll")
      .setPath(keyPath)
      .setPayload(Form({ ...csrf, grace: optional }))
      .addSuccess(Html)
  )
  .add(page("revokeKeyPage", "/dashboard/keys/:keyId/revoke").setPath(Schema.Struct({ keyId: Schema.String })))
  .add(
    HttpApiEndpoint.post("revokeKey", "/dashboard/keys/:keyId/revoke")
      .setPath(Schema.Struct({ keyId: Schema.String }))
      .setPayload(Form(csrf))
      .addSuccess(Html)
  )
  .add(page("usage", "/dashboard/usage"))
  .add(
    HttpApiEndpoint.get("usageCsv", "/dashboard/usage.csv").addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
  )
  .add(page("ledger", "/dashboard/ledger").setUrlParams(Schema.Struct({ before: Schema.optional(Schema.String) })))
  .add(page("members", "/dashboard/members").setUrlParams(Schema.Struct({ ticket: optional })))
  .add(
    HttpApiEndpoint.post("inviteMember", "/dashboard/members/invite")
      .setPayload(Form({ ...csrf, email: Schema.String, role: Schema.String }))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("changeRole", "/dashboard/members/:memberId/role")
      .setPath(Schema.Struct({ memberId: Schema.String }))
      .setPayload(Form({ ...csrf, role: Schema.String }))
      .addSuccess(Html)
  )
  .add(page("removeMemberPage", "/dashboard/members/:memberId/remove").setPath(memberPath))
  .add(
    HttpApiEndpoint.post("resetMember", "/dashboard/members/:memberId/reset")
      .setPath(memberPath)
      .setPayload(Form(csrf))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("resendInvitation", "/dashboard/members/invitations/:invitationId/resend")
      .setPath(invitationPath)
      .setPayload(Form(csrf))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("cancelInvitation", "/dashboard/members/invitations/:invitationId/cancel")
      .setPath(invitationPath)
      .setPayload(Form(csrf))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("removeMember", "/dashboard/members/:memberId/remove")
      .setPath(Schema.Struct({ memberId: Schema.String }))
      .setPayload(Form(csrf))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("changePassword", "/dashboard/password")
      .setPayload(Form({ ...csrf, current: Schema.String, next: Schema.String }))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("lowBalance", "/dashboard/settings/low-balance")
      .setPayload(Form({ ...csrf, threshold: optional }))
      .addSuccess(Html)
  )
  .add(page("audit", "/dashboard/audit").setUrlParams(Schema.Struct({ before: optional })))
  .add(page("catalogue", "/dashboard/catalogue"))
  .add(
    HttpApiEndpoint.get("asset", "/dashboard/assets/:file")
      .setPath(Schema.Struct({ file: Schema.String }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/plain" }))
  )
  .annotate(OpenApi.Exclude, true) {}
