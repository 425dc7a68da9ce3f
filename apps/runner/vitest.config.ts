import { config } from "@pdr/vitest-config"

// the suite spawns the apps as processes: from their bundles, built first unless fresh
export default config({ bundles: true })
