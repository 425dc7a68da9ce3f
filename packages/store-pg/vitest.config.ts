import { config } from "@pdr/vitest-config"

// the files mostly wait on PostgreSQL (each on its own schema): two run at once
export default config({ maxWorkers: 2 })
