import { config } from "@pdr/vitest-config"

export default config()
