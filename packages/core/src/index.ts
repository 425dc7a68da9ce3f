export * as Core from "./Core.js"
export * as Refresh from "./Refresh.js"
