/**
 * The commands of `pnpm admin <noun> <verb> [options] [--json]` (entry point: src/cli.ts): the operator CLI, on
 * @effect/cli, over the client derived from the operator API contract (`@pdr/client/effect` `makeAdmin`). Works the same on the embedded default and on a real
 * database (it talks to the running server). `--json` prints only JSON on stdout, for scripts; an API error exits 1,
 * a usage error 2.
 *
 * Adding a command: write one `leaf(...)` (its options, the client call, the human rendering) and list it under
 * its noun in `commands` below (a new noun is one more `noun(...)` entry).
 */
import { existsSync, readFileSync } from "node:fs"
import { CliConfig, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { FetchHttpClient, HttpClientError } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as PdrClient from "@pdr/client/effect"
import * as Terminal from "@pdr/core/src/Terminal.js"
import { Failure as Answer } from "@pdr/http-api"
import { Config, Console, Context, Data, Effect, Layer, Option, Redacted } from "effect"
import * as ServerConfig from "../Config.js"
import { engineVersion } from "../Version.js"
import * as OperatorToken from "./OperatorToken.js"

/** A failure the CLI reports: its exit code, its JSON body (with `--json`) and its human line (on stderr). */
class Failure extends Data.TaggedError("Failure")<{
  readonly exitCode: 1 | 2
  readonly body: { readonly error: { readonly code: string; readonly message: string } }
  readonly human: string
}> {}

/** A failure as a command reports it: with `--json` or not. */
interface Reported {
  readonly failure: Failure
  readonly json: boolean
}

const usage = (message: string) =>
  new Failure({ exitCode: 2, body: { error: { code: "usage", message } }, human: message })

/** The operator API's client and where it is, resolved once from the server's configuration. */
class Operator extends Context.Tag("@pdr/server/cli/Operator")<
  Operator,
  { readonly admin: PdrClient.AdminClient; readonly baseUrl: string; readonly publicUrl: string }
>() {}

/**
 * ADMIN_URL (else the server's ADMIN_PORT on loopback), ADMIN_TOKEN (else the token file in the server's DATA_DIR),
 * and the server's PUBLIC_URL (the base of the links the CLI prints).
 */
const OperatorLive = Layer.effect(
  Operator,
  Effect.gen(function* () {
    const server = yield* Effect.mapError(ServerConfig.server, (e) => usage(`configuration: ${e}`))
    const url = yield* Effect.orDie(Config.option(Config.string("ADMIN_URL")))
    const baseUrl = Option.getOrElse(url, () => `http://127.0.0.1:${server.adminPort}`)
    const file = OperatorToken.path(server.dataDir)
    const token = Option.isSome(server.adminToken)
      ? server.adminToken.value
      : existsSync(file)
        ? Redacted.make(readFileSync(file, "utf8").trim())
        : yield* usage(`no operator token: set ADMIN_TOKEN or start the server once (it writes ${file})`)
    const admin = yield* PdrClient.makeAdmin({ baseUrl, token })
    return { admin, baseUrl, publicUrl: server.publicUrl }
  })
).pipe(Layer.provide(FetchHttpClient.layer))

/** Any failure of a client call, as the CLI reports it: an error of the API's family as its D5 body. */
const toFailure = (e: unknown, baseUrl: string): Failure => {
  if (Answer.isFailure(e)) {
    const { error } = e
    return new Failure({ exitCode: 1, body: { error }, human: `error ${error.code}: ${error.message}` })
  }
  if (HttpClientError.isHttpClientError(e) && e._tag === "RequestError") {
    const message = `cannot reach the operator API at ${baseUrl}: is the server running?`
    return new Failure({ exitCode: 1, body: { error: { code: "usage", message } }, human: message })
  }
  const message = `unexpected answer from the operator API at ${baseUrl}: ${String(e)}`
  return new Failure({ exitCode: 1, body: { error: { code: "unexpected", message } }, human: message })
}

const asJson = (input: unknown) => (input as { readonly json: boolean }).json

const json = Options.boolean("json").pipe(Options.withDescription("print only JSON on stdout"))

/** One operator command: options, the client call, its human rendering and (optionally) its JSON view. */
const leaf = <const C extends Command.Command.Config, A>(
  name: string,
  description: string,
  config: C,
  call: (
    admin: PdrClient.AdminClient,
    input: Command.Command.ParseConfig<C>,
    operator: Context.Tag.Service<Operator>
  ) => Effect.Effect<A, unknown>,
  human: (a: A) => string,
  view: (a: A) => unknown = (a) => a
) =>
  Command.make(name, { ...config, json }, (input) =>
    Effect.gen(function* () {
      const operator = yield* Operator
      const result = yield* Effect.mapError(
        call(operator.admin, input as Command.Command.ParseConfig<C>, operator),
        (e) => toFailure(e, operator.baseUrl)
      )
      yield* Console.log(asJson(input) ? JSON.stringify(view(result)) : human(result))
    }).pipe(
      Effect.provide(OperatorLive),
      Effect.mapError((failure): Reported => ({ failure, json: asJson(input) }))
    )
  ).pipe(Command.withDescription(description))

/** A noun grouping commands; alone, it is a usage error naming its commands. */
const noun = <const L extends readonly [AnyCommand, ...Array<AnyCommand>]>(
  name: string,
  description: string,
  leaves: L
) =>
  Command.make(name, {}, () =>
    Effect.fail<Reported>({
      failure: usage(`${name}: choose one of ${leaves.map((l) => [...Command.getNames(l)].join("|")).join(", ")}`),
      json: false
    })
  ).pipe(Command.withDescription(description), Command.withSubcommands(leaves))

// biome-ignore lint/suspicious/noExplicitAny: any command, whatever its input and requirements
type AnyCommand = Command.Command<any, any, any, any>

const text = (name: string, description: string) => Options.text(name).pipe(Options.withDescription(description))
const account = text("account", "the account id (acct_...)")

const table = (rows: ReadonlyArray<Record<string, unknown>>, columns: ReadonlyArray<string>) => {
  const cells = rows.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? "-" : String(r[c]))))
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)))
  const line = (values: ReadonlyArray<string>) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join("  ")
      .trimEnd()
  return [line(columns), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n")
}

const platform = text("platform", "the platform id (e.g. maps)")

/** `--request`: an op request as JSON, refused (usage error) unless it is a JSON object. */
const opRequest = text("request", 'the op request as JSON, e.g. \'{"op":"places","subjects":["ChIJ..."]}\'').pipe(
  Options.mapEffect((raw) => {
    const invalid = ValidationError.invalidValue(
      HelpDoc.p('--request must be a JSON object, e.g. \'{"op":"profiles","subjects":["jane.doe"]}\'')
    )
    return Effect.try({ try: (): unknown => JSON.parse(raw), catch: () => invalid }).pipe(
      Effect.filterOrFail(
        (v): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v),
        () => invalid
      )
    )
  })
)

const accountColumns = ["accountId", "name", "balance", "held", "spendable", "createdAt"]
const keyColumns = [
  "keyId",
  "prefix",
  "name",
  "createdAt",
  "expiresAt",
  "revokedAt",
  "lastUsedAt",
  "calls",
  "creditsSpent"
]

/** Every command, by noun. */
const commands = [
  noun("account", "accounts (orgs)", [
    leaf(
      "create",
      "create an account (an org), optionally with credits",
      {
        name: text("name", "the account's name"),
        credits: Options.integer("credits").pipe(Options.withDescription("initial credits"), Options.optional)
      },
      (admin, { name, credits }) =>
        admin.accounts.create({
          payload: { name, ...Option.match(credits, { onNone: () => ({}), onSome: (c) => ({ credits: c }) }) }
        }),
      (r) => `created account ${r.accountId} (${r.name}) with ${r.balance} credits`
    ),
    leaf(
      "list",
      "list accounts with balance and held credits",
      {},
      (admin) => admin.accounts.list(),
      (r) => table(r.accounts, accountColumns)
    ),
    leaf(
      "show",
      "balance, holds and recent ledger of an account",
      { account },
      (admin, input) => admin.accounts.show({ path: { accountId: input.account } }),
      (r) =>
        [
          table([r], accountColumns),
          "",
          `active holds (${r.holds.length}):`,
          table(r.holds, ["holdId", "keyId", "amount", "expiresAt"]),
          "",
          "recent ledger:",
          table(r.ledger, ["id", "kind", "credits", "reason", "keyId", "at"])
        ].join("\n")
    )
  ]),
  noun("credits", "credit grants", [
    leaf(
      "grant",
      "grant credits to an account, with a reason kept in its ledger",
      {
        account,
        credits: Options.integer("credits").pipe(Options.withDescription("credits to grant")),
        reason: text("reason", "why, kept in the ledger")
      },
      (admin, input) =>
        admin.credits.grant({
          path: { accountId: input.account },
          payload: { credits: input.credits, reason: input.reason }
        }),
      (r) => `granted; ${r.accountId} now has ${r.balance} credits (${r.spendable} spendable)`
    )
  ]),
  noun("key", "API keys", [
    leaf(
      "create",
      "create a key; prints the full key once",
      {
        account,
        name: text("name", "the key's name"),
        expires: text("expires", "expiry, ISO-8601").pipe(Options.optional)
      },
      (admin, input) =>
        admin.keys.create({
          path: { accountId: input.account },
          payload: {
            name: input.name,
            ...Option.match(input.expires, { onNone: () => ({}), onSome: (e) => ({ expires: e }) })
          }
        }),
      (r) => `key ${r.keyId} (${r.prefix}…)\n${r.key}\nThis is the only time the full key is shown.`,
      (r) => ({ keyId: r.keyId, key: r.key, prefix: r.prefix, expiresAt: r.expiresAt })
    ),
    leaf(
      "list",
      "prefix, name, created, expires, revoked, last used, calls, spent",
      { account },
      (admin, input) => admin.keys.list({ path: { accountId: input.account } }),
      (r) => table(r.keys, keyColumns)
    ),
    leaf(
      "revoke",
      "revoke a key, immediately and irreversibly",
      { keyId: text("key-id", "the key id (kid_...)") },
      (admin, input) => admin.keys.revoke({ path: { keyId: input.keyId } }),
      (r) => `${r.keyId} ${r.alreadyRevoked ? "was already revoked" : "revoked"}`
    )
  ]),
  noun("member", "dashboard members (D20)", [
    leaf(
      "invite",
      "invite a member; prints a one-time dashboard sign-up link (default role owner)",
      {
        account,
        email: text("email", "the member's email"),
        role: Options.choice("role", ["owner", "member"]).pipe(
          Options.withDescription("the member's role (default owner)"),
          Options.optional
        )
      },
      (admin, input, { publicUrl }) =>
        admin.members
          .invite({
            path: { accountId: input.account },
            payload: {
              email: input.email,
              ...Option.match(input.role, { onNone: () => ({}), onSome: (role) => ({ role }) })
            }
          })
          .pipe(
            Effect.map((r) => ({
              email: r.email,
              role: r.role,
              expiresAt: r.expiresAt,
              link: `${publicUrl}${r.signUpPath}`
            }))
          ),
      (r) => `one-time sign-up link for ${r.email} (${r.role}), valid until ${r.expiresAt}:\n${r.link}`
    ),
    leaf(
      "reset",
      "a one-time password reset link for a member (valid one hour; using it ends all their sessions)",
      { email: text("email", "the member's email") },
      (admin, input, { publicUrl }) =>
        admin.members
          .reset({ payload: { email: input.email } })
          .pipe(Effect.map((r) => ({ email: r.email, expiresAt: r.expiresAt, link: `${publicUrl}${r.resetPath}` }))),
      (r) => `one-time password reset link for ${r.email}, valid until ${r.expiresAt}:\n${r.link}`
    )
  ]),
  noun("holds", "credit holds", [
    leaf(
      "sweep",
      "release holds past their expiry now",
      {},
      (admin) => admin.holds.sweep(),
      (r) => `released ${r.released} expired holds`
    )
  ]),
  noun("track", "tracked entities (the nightly refresh's list)", [
    leaf(
      "add",
      "pin the subjects of an op request for the nightly refresh",
      { platform, request: opRequest },
      (admin, input) => admin.tracked.add({ payload: { platform: input.platform, request: input.request } }),
      (r) => `pinned ${r.tracked.length}: ${r.tracked.map((e) => e.subject).join(", ")}`
    ),
    leaf(
      "remove",
      "unpin a (canonical) subject",
      { platform, subject: text("subject", "the canonical subject, as `track list` shows it") },
      (admin, input) => admin.tracked.remove({ payload: { platform: input.platform, subject: input.subject } }),
      (r) => `unpinned ${r.removed}`
    ),
    leaf(
      "list",
      "tracked entities: pinned, or asked for within TRACK_DAYS",
      { pinned: Options.boolean("pinned").pipe(Options.withDescription("only the pinned entities")) },
      (admin, input) => admin.tracked.list({ urlParams: input.pinned ? { pinned: true } : {} }),
      (r) => table(r.tracked, ["platform", "op", "subject", "pinned", "demandedAt"])
    )
  ])
] as const

// the root's own handler (no command given) prints the help of the whole tree, which only exists once built
const built: { root?: AnyCommand } = {}

const root = Command.make("admin", {}, () =>
  Effect.suspend(() => Console.error(HelpDoc.toAnsiText(Command.getHelp(built.root!, CliConfig.defaultConfig))))
).pipe(
  Command.withDescription(
    "operator commands. Environment: ADMIN_URL (default http://127.0.0.1:$ADMIN_PORT), ADMIN_TOKEN (default: the token file in $DATA_DIR); the server's own configuration gives the defaults."
  ),
  Command.withSubcommands(commands)
)
built.root = root

const report = (failure: Failure, asJson: boolean) =>
  Effect.as(asJson ? Console.log(JSON.stringify(failure.body)) : Console.error(failure.human), failure.exitCode)

/** Runs the CLI on these arguments (`process.argv`: runtime and script first); succeeds with the exit code. */
export const run = (argv: ReadonlyArray<string>) =>
  Effect.consoleWith((console) =>
    // the help and argument errors plain in a pipe or a log file (Terminal)
    Effect.withConsole(
      Command.run(root, { name: "pnpm admin", version: engineVersion })(argv),
      Terminal.plainWhereNeeded(console)
    )
  ).pipe(
    Effect.as(0),
    Effect.catchAll((e) => {
      if (ValidationError.isValidationError(e)) {
        // @effect/cli has printed the problem on stderr; with --json, stdout still gets one JSON line
        const message = Terminal.plain(HelpDoc.toAnsiText(e.error)).trim()
        return report(usage(message), argv.includes("--json"))
      }
      // the commands' own failures (their type is lost through the `any` of the command tree)
      const reported = e as unknown as Reported
      return report(reported.failure, reported.json)
    }),
    Effect.provide(NodeContext.layer)
  )
