// Helpers of the dashboard tests: invitations through the operator API, form posts with a session cookie.
import { admin, type Running, request } from "./harness.js"

/** The low scrypt cost the tests use (production: 2^17, OWASP). */
export const testScrypt = { scryptLogN: 10 }

/** A one-time sign-up link from the operator's `member invite`. */
export const invite = async (server: Running, accountId: string, email: string, role: "owner" | "member" = "owner") => {
  const r = await admin(server, "POST", `/admin/accounts/${accountId}/members/invitations`, { email, role })
  return {
    link: `${server.api}${r.signUpPath as string}`,
    token: new URL(`${server.api}${r.signUpPath}`).searchParams.get("token")!
  }
}

/** A form post (same origin unless headers say otherwise), without following redirects. */
export const form = (
  server: Running,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {}
) =>
  fetch(`${server.api}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString()
  })

/** The session cookie (`name=value`) a response sets, if any. */
export const sessionCookie = (res: Response) => {
  const set = res.headers.getSetCookie().find((c) => c.startsWith("pdr_session="))
  return set?.split(";")[0]
}

/** Accepts an invitation and signs in: the session cookie. */
export const member = async (
  server: Running,
  accountId: string,
  email: string,
  password: string,
  role: "owner" | "member" = "owner"
) => {
  const { token } = await invite(server, accountId, email, role)
  const up = await form(server, "/dashboard/sign-up", { token, password })
  if (up.status !== 303) throw new Error(`sign-up: ${up.status} ${await up.text()}`)
  const res = await form(server, "/dashboard/sign-in", { email, password })
  const cookie = sessionCookie(res)
  if (res.status !== 303 || cookie === undefined) throw new Error(`sign-in: ${res.status}`)
  return cookie
}

/** The CSRF token of a signed-in page. */
export const csrfOf = async (server: Running, cookie: string) => {
  const page = await request(`${server.api}/dashboard/keys`, { headers: { cookie } })
  const match = /name="csrf" value="([0-9a-f]{64})"/.exec(page.text)
  if (!match) throw new Error(`no csrf field: ${page.status}`)
  return match[1]!
}
