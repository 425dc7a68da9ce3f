/** The demo account of a first start on an empty embedded database: credits and a key, printed once. */
import { Accounts, Keys, Members } from "@pdr/domain"
import { Console, Effect } from "effect"

/** Demo credits granted on a first start. */
export const demoCredits = 1000

/** The demo account owner's email (the dashboard sign-in, D20). */
export const demoOwner = "owner@demo.example"

/**
 * Creates the demo account and key when no account exists yet; prints the key once, labelled, and the owner's
 * one-time sign-up link for the dashboard at `publicUrl`.
 */
export const seed = (publicUrl: string) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts.Accounts
    const keys = yield* Keys.Keys
    const members = yield* Members.Members
    if ((yield* accounts.list()).length > 0) return
    const account = yield* accounts.create({ name: "Demo", credits: demoCredits })
    const created = yield* keys.create({ accountId: account.id, name: "demo key" })
    const invitation = yield* members
      .invite({ accountId: account.id, email: demoOwner, role: "owner" })
      .pipe(Effect.catchTag("AlreadyMember", (e) => Effect.die(e)))
    yield* Console.log(
      [
        "",
        "  DEMO ACCOUNT (first start on an empty data directory)",
        `  account: ${account.id}  credits: ${demoCredits}`,
        `  DEMO API KEY (shown once, not stored): ${created.key}`,
        `  DASHBOARD: sign up as ${demoOwner} (one-time link, valid 7 days):`,
        `    ${publicUrl}/dashboard/sign-up?token=${invitation.token}`,
        ""
      ].join("\n")
    )
  })
