// The JSON log line (issue 22): the direct writer of a text-only line gives exactly Effect's `Logger.jsonLogger` line,
// whatever the line (a request's line, a cause, log spans, object or odd annotations, a message of several parts).
import { Telemetry } from "@pdr/core"
import { Cause, FiberId, FiberRefs, HashMap, List, Logger, LogLevel, LogSpan } from "effect"
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
