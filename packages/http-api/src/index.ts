export * as Api from "./Api.js"
export * as Document from "./Document.js"
export * as Errors from "./Errors.js"
export * as Security from "./Security.js"
