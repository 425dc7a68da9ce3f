import { config } from "@pdr/vitest-config"

// the property tests (300 generated calls each) take 20-32 s on a machine at load 20 (a fresh-clone CI beside three
// builds timed three of them out at the default 30 s); they are CPU-bound, never waiting, so the longer bound hides no hang
export default config({ timeout: 120_000 })
