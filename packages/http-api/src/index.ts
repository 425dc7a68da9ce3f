export * as AdminApi from "./AdminApi.js"
export * as Api from "./Api.js"
export * as Errors from "./Errors.js"
export * as Security from "./Security.js"
