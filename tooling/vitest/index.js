// Shared vitest configuration: run sources through the `@pdr/source` export condition, no build step.
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

/**
 * `bundles`: the suite spawns the apps as processes: their bundles are built first unless fresh (`bundles.js`).
 * `maxWorkers`: test files run at once (vitest's default is one fewer than the cores: one on two cores).
 * @param {{ timeout?: number, sequential?: boolean, bundles?: boolean, maxWorkers?: number }} [options]
 */
export const config = (options = {}) =>
  defineConfig({
    resolve: { conditions: ["@pdr/source"] },
    ssr: { resolve: { conditions: ["@pdr/source"] } },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: options.timeout ?? 30_000,
      hookTimeout: 60_000,
      fileParallelism: !options.sequential,
      ...(options.maxWorkers === undefined ? {} : { maxWorkers: options.maxWorkers, minWorkers: 1 }),
      ...(options.bundles ? { globalSetup: [fileURLToPath(new URL("./bundles.js", import.meta.url))] } : {}),
      reporters: ["default"]
    }
  })
