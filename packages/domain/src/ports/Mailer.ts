/** Port: outgoing email (invitations, password resets); optional: without it, links are shown to copy. */
import { Context, type Effect, Schema } from "effect"

/** The message could not be handed to the mail server. */
export class MailNotSent extends Schema.TaggedError<MailNotSent>()("MailNotSent", { reason: Schema.String }) {
  override get message() {
    return `the email could not be sent: ${this.reason}`
  }
}

/** A plain-text message. */
export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/** Port: the mailer. */
export class Mailer extends Context.Tag("@pdr/domain/Mailer")<
  Mailer,
  {
    /** False when no mail server is configured: nothing is sent and links are shown instead. */
    readonly configured: boolean
    readonly send: (mail: Mail) => Effect.Effect<void, MailNotSent>
  }
>() {}
