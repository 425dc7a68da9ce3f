/** The id of the request being answered: sent as `x-request-id` and in every body (D4, D5). */

import { randomBytes } from "node:crypto"
import { FiberRef } from "effect"

/** The current request's id. */
export const current = FiberRef.unsafeMake("req_none")

/** A new request id. */
export const make = (): string => `req_${randomBytes(10).toString("hex")}`
