import { describe, expect, it } from "vitest"
import { benchNodeOptions, nodeOptionsOf, runnerNodeOptions, startNodeOptions } from "../bench/launch.js"

describe("the server's launch options", () => {
  it("are read from `pnpm start`, with its heap bound and without V8's allocation-site pretenuring", () => {
    const options = startNodeOptions()
    // issue 22: at saturation pretenuring sent a stored call's short-lived objects to the old generation
    expect(options).toContain("--no-allocation-site-pretenuring")
    expect(options).toContain("--max-old-space-size=160")
  })

  it("of the runner are read from `pnpm runner`: its heap bound, no allocation-site pretenuring", () => {
    // issue 19: 0.60-0.75 instead of 0.74-0.83 ms of runner CPU per entity at zero latency (r1 1,388-1,732, median
    // 1,515, instead of 1,316-1,472, median 1,377 entities/s); 32 MB semi-spaces added nothing measurable to it
    expect(runnerNodeOptions()).toEqual(["--max-old-space-size=160", "--no-allocation-site-pretenuring"])
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
    expect(nodeOptionsOf("node --a --import=tsx apps/runner/src/main.ts once", "apps/runner/src/main.ts")).toEqual([
      "--a",
      "--import=tsx"
    ])
  })
})
