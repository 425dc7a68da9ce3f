import { config } from "@pdr/vitest-config"

// the suite spawns the apps as processes: from their bundles, built first unless fresh; its files mostly wait on
// spawned runners, leases and outages (each on its own schema), so two run at once: 180 s instead of 300 on a slow
// two-core machine, each file as long as alone
export default config({ bundles: true, maxWorkers: 2 })
