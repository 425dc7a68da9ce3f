export * as Api from "./Api.js"
export * as DashboardApi from "./DashboardApi.js"
export * as Errors from "./Errors.js"
export * as Security from "./Security.js"
