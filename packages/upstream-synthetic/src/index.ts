export * as Generate from "./Generate.js"
export * as SyntheticUpstream from "./SyntheticUpstream.js"
