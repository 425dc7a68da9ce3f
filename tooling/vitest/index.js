// Shared vitest configuration: run sources through the `@pdr/source` export condition, no build step.
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

/**
 * `bundles`: the suite spawns the apps as processes: their bundles are built first unless fresh (`bundles.js`).
 * @param {{ timeout?: number, sequential?: boolean, bundles?: boolean }} [options]
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
      ...(options.bundles ? { globalSetup: [fileURLToPath(new URL("./bundles.js", import.meta.url))] } : {}),
      reporters: ["default"]
    }
  })
