import { describe, expect, it } from "vitest"
import { benchNodeOptions, nodeOptionsOf, startNodeOptions } from "../bench/launch.js"

describe("the server's launch options", () => {
  it("are read from `pnpm start`, with its heap bound and without V8's allocation-site pretenuring", () => {
    const options = startNodeOptions()
    // issue 22: at saturation pretenuring sent a stored call's short-lived objects to the old generation
    expect(options).toContain("--no-allocation-site-pretenuring")
    expect(options).toContain("--max-old-space-size=160")
  })

  it("are the bench servers' unless BENCH_NODE_OPTIONS says otherwise", () => {
    const saved = process.env["BENCH_NODE_OPTIONS"]
    try {
      delete process.env["BENCH_NODE_OPTIONS"]
      expect(benchNodeOptions()).toEqual(startNodeOptions())
      process.env["BENCH_NODE_OPTIONS"] = "--max-old-space-size=200  --cpu-prof"
      expect(benchNodeOptions()).toEqual(["--max-old-space-size=200", "--cpu-prof"])
    } finally {
      if (saved === undefined) delete process.env["BENCH_NODE_OPTIONS"]
      else process.env["BENCH_NODE_OPTIONS"] = saved
    }
  })

  it("are the options between node and the bundle", () => {
    expect(nodeOptionsOf("node apps/server/build.mjs && node --a=1 --b apps/server/dist/main.js")).toEqual([
      "--a=1",
      "--b"
    ])
    expect(() => nodeOptionsOf("tsx src/main.ts")).toThrow()
  })
})
