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

/** The dashboard group. */
export class DashboardGroup extends HttpApiGroup.make("dashboard")
  .add(page("overview", "/dashboard"))
  .add(page("signInPage", "/dashboard/sign-in"))
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
  .add(page("keys", "/dashboard/keys"))
  .add(
    HttpApiEndpoint.post("createKey", "/dashboard/keys")
      .setPayload(Form({ ...csrf, name: Schema.String, expires: Schema.optional(Schema.String) }))
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
  .add(page("members", "/dashboard/members"))
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
  .add(page("catalogue", "/dashboard/catalogue"))
  .add(
    HttpApiEndpoint.get("asset", "/dashboard/assets/:file")
      .setPath(Schema.Struct({ file: Schema.String }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/plain" }))
  )
  .annotate(OpenApi.Exclude, true) {}
