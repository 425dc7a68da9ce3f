import { config } from "@pdr/vitest-config"

// the suite spawns the apps as processes: from their bundles, built first unless fresh; its files mostly wait on
// sockets, spawned processes and leases, so two run at once (the longest suite: turbo may start it last)
export default config({ bundles: true, maxWorkers: 2 })
