// Issue 24: email for real. With SMTP_URL set, invitations and password resets are sent through nodemailer to a local
// SMTP server started by the test (smtp-server), which reads each message; the links in them work once. "Forgot
// password" answers the same for a stranger's email and sends nothing. With the mail server down, the action still
// succeeds and the page says the email could not be sent and shows the link to copy.
import { createServer as createTcpServer } from "node:net"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { Redacted } from "effect"
import { SMTPServer } from "smtp-server"
import { csrfOf, form, member, sessionCookie, testScrypt } from "./dashboard.js"
import { admin, type Running, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()
const password = "a long enough password"

interface Received {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly raw: string
}

/** The body of a message as text: headers dropped, quoted-printable decoded (RFC 2045 6.7). */
const bodyOf = (raw: string) => {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/)
  const body = rest.join("\n\n")
  return /content-transfer-encoding:\s*quoted-printable/i.test(head)
    ? body
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    : body
}

/** A local SMTP server (no TLS, no auth) that keeps every message it is sent. */
const smtp = async () => {
  const received: Array<Received> = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8")
        })
        callback()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.server.address() as { port: number }).port
  return { received, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** A port nothing listens on (taken, then released). */
const closedPort = async () => {
  const s = createTcpServer()
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

const waitFor = async <A>(f: () => A | undefined, ms = 5_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const v = f()
    if (v !== undefined) return v
    if (Date.now() > until) throw new Error("timed out waiting")
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe.skipIf(!serverUp)("email through SMTP (issue 24)", () => {
  let mail: Awaited<ReturnType<typeof smtp>>
  let server: Running
  beforeAll(async () => {
    mail = await smtp()
    server = await start({
      options: {
        dashboard: testScrypt,
        mail: { url: Redacted.make(`smtp://127.0.0.1:${mail.port}`), from: "PDR <no-reply@pdr.example>" }
      }
    })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await mail?.close()
  })

  it("issue 24: an invitation is emailed; its link signs the member up", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { name: "mail", credits: 10 })
    const owner = await member(server, created.accountId, "owner@mail.example", password)
    const csrf = await csrfOf(server, owner)
    const invited = await form(
      server,
      "/dashboard/members/invite",
      { csrf, email: "new@mail.example", role: "member" },
      { cookie: owner }
    )
    assert.strictEqual(invited.status, 303)
    const page = await (
      await fetch(`${server.api}${invited.headers.get("location")}`, { headers: { cookie: owner } })
    ).text()
    assert.include(page, "An email with the one-time link was sent to new@mail.example")
    assert.notInclude(page, "token=inv_")
    const message = await waitFor(() => mail.received.find((m) => m.to.includes("new@mail.example")))
    assert.strictEqual(message.from, "no-reply@pdr.example")
    assert.match(message.raw, /^Subject: Your invitation to the Platform Data API dashboard/m)
    const link = /(http:\/\/\S+\/dashboard\/sign-up\?token=inv_[0-9A-Za-z]+)/.exec(bodyOf(message.raw))![1]!
    assert.strictEqual(new URL(link).origin, new URL(server.api).origin)
    const up = await form(server, "/dashboard/sign-up", { token: new URL(link).searchParams.get("token")!, password })
    assert.deepStrictEqual([up.status, up.headers.get("location")], [303, "/dashboard/sign-in?reason=joined"])
  })

  it("issue 24: forgot password emails a one-time link that ends every session; a stranger's email gets the same answer and no email", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { name: "forgot", credits: 10 })
    const cookie = await member(server, created.accountId, "forgetful@mail.example", password)
    const before = mail.received.length
    const stranger = await form(server, "/dashboard/forgot", { email: "stranger@mail.example" })
    const known = await form(server, "/dashboard/forgot", { email: "Forgetful@mail.example" })
    assert.deepStrictEqual(
      [stranger.status, stranger.headers.get("location"), known.status, known.headers.get("location")],
      [303, "/dashboard/forgot?sent=1", 303, "/dashboard/forgot?sent=1"]
    )
    const message = await waitFor(() =>
      mail.received.slice(before).find((m) => m.to.includes("forgetful@mail.example"))
    )
    assert.strictEqual(mail.received.slice(before).length, 1)
    const link = /(http:\/\/\S+\/dashboard\/reset\?token=rst_[0-9A-Za-z]+)/.exec(bodyOf(message.raw))![1]!
    const token = new URL(link).searchParams.get("token")!
    const formPage = await fetch(link)
    assert.strictEqual(formPage.status, 200)
    assert.include(await formPage.text(), "Choose a new password")
    const done = await form(server, "/dashboard/reset", { token, password: "a newer long password" })
    assert.deepStrictEqual([done.status, done.headers.get("location")], [303, "/dashboard/sign-in?reason=reset"])
    const old = await fetch(`${server.api}/dashboard/keys`, { headers: { cookie }, redirect: "manual" })
    assert.strictEqual(old.headers.get("location"), "/dashboard/sign-in?reason=expired")
    const again = await form(server, "/dashboard/reset", { token, password: "yet another password" })
    assert.strictEqual(again.status, 400)
    assert.include(await again.text(), "invalid, used or expired")
    const signedIn = await form(server, "/dashboard/sign-in", {
      email: "forgetful@mail.example",
      password: "a newer long password"
    })
    assert.isDefined(sessionCookie(signedIn))
  })
})

describe.skipIf(!serverUp)("email with the SMTP server down (issue 24)", () => {
  let server: Running
  beforeAll(async () => {
    const port = await closedPort()
    server = await start({
      options: {
        dashboard: testScrypt,
        mail: { url: Redacted.make(`smtp://127.0.0.1:${port}`), from: "PDR <no-reply@pdr.example>", timeoutMs: 2_000 }
      }
    })
  }, 60_000)
  afterAll(() => server?.close())

  it("issue 24: the invitation is made anyway; the page says the email could not be sent and shows the link", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { name: "down", credits: 10 })
    const owner = await member(server, created.accountId, "owner@down.example", password)
    const csrf = await csrfOf(server, owner)
    const invited = await form(
      server,
      "/dashboard/members/invite",
      { csrf, email: "late@down.example", role: "member" },
      { cookie: owner }
    )
    assert.strictEqual(invited.status, 303)
    const page = await (
      await fetch(`${server.api}${invited.headers.get("location")}`, { headers: { cookie: owner } })
    ).text()
    assert.include(page, "The email to late@down.example could not be sent")
    const link = /(http:\/\/[^<\s]+\/dashboard\/sign-up\?token=inv_[0-9A-Za-z]+)/.exec(page)![1]!
    const up = await form(server, "/dashboard/sign-up", { token: new URL(link).searchParams.get("token")!, password })
    assert.strictEqual(up.status, 303)
  })
})
