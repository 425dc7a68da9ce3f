// Shared vitest configuration: run sources through the `@pdr/source` export condition, no build step.
import { defineConfig } from "vitest/config"

/** @param {{ timeout?: number, sequential?: boolean }} [options] */
export const config = (options = {}) =>
  defineConfig({
    resolve: { conditions: ["@pdr/source"] },
    ssr: { resolve: { conditions: ["@pdr/source"] } },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: options.timeout ?? 30_000,
      hookTimeout: 60_000,
      fileParallelism: !options.sequential,
      reporters: ["default"]
    }
  })
