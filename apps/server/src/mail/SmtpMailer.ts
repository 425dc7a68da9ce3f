/**
 * The Mailer port over SMTP with nodemailer (issue 24), when `SMTP_URL` is set; without it, `unconfigured` sends
 * nothing and the dashboard shows links to copy. nodemailer's `createTransport` takes a connection URL
 * (`smtp://user:pass@host:587`, `smtps://...`) as the `url` of its options, and `sendMail({from, to, subject, text})`
 * returns a promise (nodemailer lib/nodemailer.js, https://app.unpkg.com/nodemailer@6.6.5/files/lib/nodemailer.js;
 * the same API in 10.6). The timeouts are short so an unreachable server fails the send in seconds, not minutes.
 */
import { Mailer } from "@pdr/domain"
import { Effect, Layer, Redacted } from "effect"
import type nodemailer from "nodemailer"

/** Where mail goes and whom it is from. */
export interface Options {
  readonly url: Redacted.Redacted<string>
  readonly from: string
  /** Connection, greeting and socket timeouts (ms). */
  readonly timeoutMs?: number
}

/**
 * A Mailer that sends through the SMTP server of `url`. nodemailer is loaded with the first mail (issue 22: not at
 * start, about 2 MB of heap that a server without mail never uses).
 */
export const make = (options: Options): Mailer.Mailer["Type"] => {
  const timeout = options.timeoutMs ?? 5_000
  let transport: Promise<ReturnType<typeof nodemailer.createTransport>> | undefined
  const connect = () => {
    if (transport === undefined)
      transport = import("nodemailer").then(({ default: mailer }) =>
        mailer.createTransport({
          url: Redacted.value(options.url),
          connectionTimeout: timeout,
          greetingTimeout: timeout,
          socketTimeout: timeout * 2
        } as Parameters<typeof nodemailer.createTransport>[0])
      )
    return transport
  }
  return {
    configured: true,
    send: (mail) =>
      Effect.tryPromise({
        try: async () =>
          (await connect()).sendMail({
            from: options.from,
            to: mail.to,
            subject: mail.subject,
            text: mail.text
          }),
        // the reason names the failure, never the URL (it may carry credentials)
        catch: (e) =>
          new Mailer.MailNotSent({
            reason: (e as { code?: string }).code ?? (e instanceof Error ? e.name : "unknown error")
          })
      }).pipe(Effect.asVoid)
  }
}

/** No mail server: nothing is sent. */
export const unconfigured: Mailer.Mailer["Type"] = {
  configured: false,
  send: () => Effect.fail(new Mailer.MailNotSent({ reason: "no mail server is configured (SMTP_URL)" }))
}

/** The Mailer port: SMTP when options are given, else none. */
export const layer = (options: Options | undefined) =>
  Layer.succeed(Mailer.Mailer, options === undefined ? unconfigured : make(options))
