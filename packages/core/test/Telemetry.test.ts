// The JSON log line (issue 22): the direct writer of a text-only line gives exactly Effect's `Logger.jsonLogger` line,
// whatever the line (a request's line, a cause, log spans, object or odd annotations, a message of several parts).
import { Telemetry } from "@pdr/core"
import { Cause, Effect, FiberId, FiberRefs, HashMap, List, Logger, LogLevel, LogSpan } from "effect"
import { describe, expect, it } from "vitest"

const base = {
  fiberId: FiberId.make(42, 0),
  logLevel: LogLevel.Info,
  message: "request" as unknown,
  cause: Cause.empty as Cause.Cause<unknown>,
  context: FiberRefs.empty(),
  spans: List.empty<LogSpan.LogSpan>(),
  annotations: HashMap.empty<string, unknown>(),
  date: new Date("2026-11-26T07:30:00.123Z")
}

const lines: ReadonlyArray<[string, typeof base]> = [
  [
    "a request's line",
    {
      ...base,
      annotations: HashMap.make(
        ["requestId", "req_0123456789abcdef0123"],
        ["keyId", "key_abc"],
        ["method", "POST"],
        ["route", "/api/v1/platforms/maps"],
        ["status", 200],
        ["durationMs", 3],
        ["credits", 0]
      )
    }
  ],
  ["no annotation", base],
  ["a message in one part", { ...base, message: ["started"] }],
  [
    "text to escape",
    { ...base, message: 'a "quoted"\nline \u2028 é', annotations: HashMap.make(['k"ey\n', "v\u0001"]) }
  ],
  [
    "odd numbers and booleans",
    { ...base, annotations: HashMap.make(["nan", Number.NaN], ["inf", -Infinity], ["neg0", -0], ["ok", true]) }
  ],
  ["a warning", { ...base, logLevel: LogLevel.Warning }],
  ["a message of two parts", { ...base, message: ["a", "b"] }],
  ["a message that is an object", { ...base, message: { a: 1 } }],
  ["an error message", { ...base, message: new Error("boom") }],
  ["a cause", { ...base, cause: Cause.fail("bad") }],
  ["a log span", { ...base, spans: List.make(LogSpan.make("db", base.date.getTime() - 5)) }],
  ["an object annotation", { ...base, annotations: HashMap.make(["detail", { n: 1 }], ["status", 200]) }],
  ["an undefined annotation", { ...base, annotations: HashMap.make(["missing", undefined]) }],
  ["a __proto__ annotation", { ...base, annotations: HashMap.make(["__proto__", "x"], ["a", 1]) }],
  ["a bigint annotation", { ...base, annotations: HashMap.make(["big", 12n]) }],
  ["a composite fiber id", { ...base, fiberId: FiberId.combine(FiberId.make(1, 0), FiberId.make(2, 0)) }],
  ["no fiber id", { ...base, fiberId: FiberId.none }]
]

describe("Telemetry.jsonLogger", () => {
  for (const [name, options] of lines) {
    it(`writes ${name} as Logger.jsonLogger does`, () => {
      expect(Telemetry.jsonLogger.log(options)).toBe(Logger.jsonLogger.log(options))
    })
  }
  it("writes a request's line directly (the same text, without the generic path)", () => {
    const options = lines[0]![1]
    expect(Telemetry.jsonLogger.log(options)).toBe(
      '{"message":"request","logLevel":"INFO","timestamp":"2026-11-26T07:30:00.123Z","annotations":{' +
        [...options.annotations].map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",") +
        '},"spans":{},"fiberId":"#42"}'
    )
  })
})

// The request's line written at once (Telemetry.infoLine): the same JSON as the fiber's logging writes through Effect,
// only when that logging is the JSON lines alone; anything else (another logger, a log span, an annotation that is not
// plain) is left to Effect, and a level below the minimum writes nothing.
describe("Telemetry.infoLine", () => {
  /** What `run` writes to stdout (the JSON lines are written at the end of the turn). */
  const written = async (run: Effect.Effect<unknown>) => {
    const out: Array<string> = []
    const write = process.stdout.write.bind(process.stdout)
    process.stdout.write = ((chunk: string) => {
      out.push(String(chunk))
      return true
    }) as typeof process.stdout.write
    try {
      const result = await Effect.runPromise(run.pipe(Effect.provide(Telemetry.jsonLogs)))
      await new Promise((r) => setImmediate(r))
      return {
        result,
        lines: out
          .join("")
          .split("\n")
          .filter((l) => l.length > 0)
      }
    } finally {
      process.stdout.write = write
    }
  }
  const fields: ReadonlyArray<readonly [string, Telemetry.Plain]> = [
    ["requestId", "req_1"],
    ["route", "/api/v1/platforms/maps"],
    ["status", 200],
    ["ok", true]
  ]
  const direct = Effect.withFiberRuntime((fiber) =>
    Effect.succeed(Telemetry.infoLine(fiber as never, "request", fields))
  )
  const throughEffect = Effect.annotateLogs(Effect.logInfo("request"), Object.fromEntries(fields))
  const comparable = (line: string) => {
    const { timestamp, fiberId, ...rest } = JSON.parse(line)
    expect(typeof timestamp).toBe("string")
    expect(fiberId).toMatch(/^#\d+$/)
    return rest
  }

  it("writes what Effect's logging writes, the fiber's annotations with the line's over them", async () => {
    const annotated = <A, E>(e: Effect.Effect<A, E>) => Effect.annotateLogs(e, { tenant: "t1", route: "old" })
    const a = await written(annotated(direct))
    const b = await written(annotated(throughEffect))
    expect(a.result).toBe(true)
    expect(a.lines).toHaveLength(1)
    expect(comparable(a.lines[0]!)).toEqual(comparable(b.lines[0]!))
  })

  it("leaves the line to Effect with another logger, a log span or an annotation that is not plain", async () => {
    const custom = Logger.make(() => {})
    for (const run of [
      Effect.provide(direct, Logger.add(custom)),
      Effect.withLogSpan(direct, "db"),
      Effect.annotateLogs(direct, { detail: { n: 1 } })
    ]) {
      const r = await written(run)
      expect(r.result).toBe(false)
      expect(r.lines).toEqual([])
    }
  })

  it("writes nothing below the minimum level", async () => {
    const r = await written(Logger.withMinimumLogLevel(direct, LogLevel.Warning))
    expect(r.result).toBe(true)
    expect(r.lines).toEqual([])
  })
})
