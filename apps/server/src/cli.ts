/**
 * `pnpm admin <command>`: the operator CLI over the operator API. Works the same on the embedded default and on a
 * real database (it talks to the running server). `--json` prints only JSON on stdout, for scripts.
 */
import { existsSync, readFileSync } from "node:fs"
import * as OperatorToken from "./admin/OperatorToken.js"

const usage = `usage: pnpm admin <command> [--json]
  account create --name N [--credits C]      create an account (an org), optionally with credits
  account list                               list accounts with balance and held credits
  account show --account A                   balance, holds and recent ledger of an account
  credits grant --account A --credits C --reason R
  key create --account A --name N [--expires ISO-8601]   prints the full key once
  key list --account A                       prefix, name, created, expires, revoked, last used, calls, spent
  key revoke --key-id K                      immediate and irreversible
  holds sweep                                release holds past their expiry now
  track add --platform P --request JSON      pin the subjects of an op request for the nightly refresh
  track remove --platform P --subject S      unpin a (canonical) subject
  track list [--pinned]                      tracked entities: pinned, or asked for within TRACK_DAYS
  member invite --account A --email E [--role owner|member]   prints a one-time dashboard sign-up link (default role owner)
environment: PUBLIC_URL (default http://localhost:$PORT, for sign-up links), ADMIN_URL (default http://127.0.0.1:$ADMIN_PORT, port 8081), ADMIN_TOKEN (default: read from $DATA_DIR/admin-token)`

const argv = process.argv.slice(2).filter((a) => a !== "--")
const json = argv.includes("--json")
const words = argv.filter((a) => a !== "--json")
const flag = (name: string) => {
  const i = words.indexOf(`--${name}`)
  return i >= 0 ? words[i + 1] : undefined
}
const required = (name: string) => {
  const v = flag(name)
  if (v === undefined || v.startsWith("--")) fail(`--${name} is required`)
  return v as string
}
function fail(message: string, code = 2): never {
  if (json) process.stdout.write(`${JSON.stringify({ error: { code: "usage", message } })}\n`)
  else process.stderr.write(`${message}\n\n${usage}\n`)
  process.exit(code)
}

const base = process.env["ADMIN_URL"] ?? `http://127.0.0.1:${process.env["ADMIN_PORT"] ?? "8081"}`
const tokenFile = OperatorToken.path(process.env["DATA_DIR"] ?? ".data")
const token = process.env["ADMIN_TOKEN"] ?? (existsSync(tokenFile) ? readFileSync(tokenFile, "utf8").trim() : undefined)

const call = async (method: string, path: string, body?: unknown) => {
  if (token === undefined) fail(`no operator token: set ADMIN_TOKEN or start the server once (it writes ${tokenFile})`)
  let res: Response
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  } catch {
    return fail(`cannot reach the operator API at ${base}: is the server running?`, 1)
  }
  // biome-ignore lint/suspicious/noExplicitAny: the operator API's own JSON, printed as it comes
  const payload = (await res.json()) as Record<string, any>
  if (!res.ok) {
    if (json) process.stdout.write(`${JSON.stringify(payload)}\n`)
    else process.stderr.write(`error ${res.status} ${payload["error"]?.code}: ${payload["error"]?.message}\n`)
    process.exit(1)
  }
  return payload
}

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

const print = (value: unknown, human: () => string) => {
  process.stdout.write(`${json ? JSON.stringify(value) : human()}\n`)
}

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

const main = async () => {
  const [noun, verb] = words
  switch (`${noun} ${verb}`) {
    case "account create": {
      const credits = flag("credits")
      const r = await call("POST", "/admin/accounts", {
        name: required("name"),
        ...(credits ? { credits: Number(credits) } : {})
      })
      return print(r, () => `created account ${r["accountId"]} (${r["name"]}) with ${r["balance"]} credits`)
    }
    case "account list": {
      const r = await call("GET", "/admin/accounts")
      return print(r, () => table(r["accounts"], accountColumns))
    }
    case "account show": {
      const r = await call("GET", `/admin/accounts/${encodeURIComponent(required("account"))}`)
      return print(r, () =>
        [
          table([r], accountColumns),
          "",
          `active holds (${r["holds"].length}):`,
          table(r["holds"], ["holdId", "keyId", "amount", "expiresAt"]),
          "",
          "recent ledger:",
          table(r["ledger"], ["id", "kind", "credits", "reason", "keyId", "at"])
        ].join("\n")
      )
    }
    case "credits grant": {
      const r = await call("POST", `/admin/accounts/${encodeURIComponent(required("account"))}/credits`, {
        credits: Number(required("credits")),
        reason: required("reason")
      })
      return print(r, () => `granted; ${r["accountId"]} now has ${r["balance"]} credits (${r["spendable"]} spendable)`)
    }
    case "key create": {
      const expires = flag("expires")
      const r = await call("POST", `/admin/accounts/${encodeURIComponent(required("account"))}/keys`, {
        name: required("name"),
        ...(expires ? { expires } : {})
      })
      const out = { keyId: r["keyId"], key: r["key"], prefix: r["prefix"], expiresAt: r["expiresAt"] }
      return print(
        out,
        () => `key ${out.keyId} (${out.prefix}…)\n${out.key}\nThis is the only time the full key is shown.`
      )
    }
    case "key list": {
      const r = await call("GET", `/admin/accounts/${encodeURIComponent(required("account"))}/keys`)
      return print(r, () => table(r["keys"], keyColumns))
    }
    case "key revoke": {
      const r = await call("POST", `/admin/keys/${encodeURIComponent(required("key-id"))}/revoke`)
      return print(r, () => `${r["keyId"]} ${r["alreadyRevoked"] ? "was already revoked" : "revoked"}`)
    }
    // ---- i12 (D20) member invite: BEGIN ----
    case "member invite": {
      const role = flag("role")
      const r = await call("POST", `/admin/accounts/${encodeURIComponent(required("account"))}/members/invitations`, {
        email: required("email"),
        ...(role === undefined ? {} : { role })
      })
      const publicUrl = process.env["PUBLIC_URL"] ?? `http://localhost:${process.env["PORT"] ?? "8080"}`
      const out = {
        email: r["email"],
        role: r["role"],
        expiresAt: r["expiresAt"],
        link: `${publicUrl}${r["signUpPath"]}`
      }
      return print(out, () =>
        [`one-time sign-up link for ${out.email} (${out.role}), valid until ${out.expiresAt}:`, out.link].join("\n")
      )
    }
    // ---- i12 member invite: END ----
    case "holds sweep": {
      const r = await call("POST", "/admin/holds/sweep")
      return print(r, () => `released ${r["released"]} expired holds`)
    }
    // ---- issue 11: tracked entities (the nightly refresh's list); port with the operator contract ----
    case "track add": {
      let request: unknown
      try {
        request = JSON.parse(required("request"))
      } catch {
        return fail('--request must be JSON, e.g. \'{"op":"profiles","subjects":["jane.doe"]}\'')
      }
      const r = await call("POST", "/admin/tracked", { platform: required("platform"), request })
      return print(
        r,
        () => `pinned ${r["tracked"].length}: ${r["tracked"].map((e: { subject: string }) => e.subject).join(", ")}`
      )
    }
    case "track remove": {
      const r = await call("POST", "/admin/tracked/remove", {
        platform: required("platform"),
        subject: required("subject")
      })
      return print(r, () => `unpinned ${r["removed"]}`)
    }
    case "track list": {
      const r = await call("GET", `/admin/tracked${words.includes("--pinned") ? "?pinned=true" : ""}`)
      return print(r, () => table(r["tracked"], ["platform", "op", "subject", "pinned", "demandedAt"]))
    }
    // ---- end of issue 11's block ----
    default:
      return fail(
        noun === undefined || noun === "help" || noun === "--help" ? "" : `unknown command: ${words.join(" ")}`,
        noun ? 2 : 0
      )
  }
}

void main()
