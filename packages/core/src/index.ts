export * as Core from "./Core.js"
export * as JobEngine from "./JobEngine.js"
export * as Refresh from "./Refresh.js"
