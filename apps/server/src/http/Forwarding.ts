/**
 * The address a request is limited by (D12's failed-authentication limit): its socket's, or, for the API requests the
 * server's own `/mcp` makes over loopback on behalf of a caller, that caller's (issue 23: one caller's bad keys never
 * slow another's). The forwarded address is believed only with this process's secret, made at start and never sent
 * off the loopback requests it signs; a client that sends the header itself is limited by its own socket's address.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"

const secret = randomBytes(32).toString("hex")
const secretBytes = Buffer.from(secret)

/** The header carrying the caller's address, and the one carrying the secret that vouches for it. */
export const addressHeader = "x-pdr-forwarded-for"
export const secretHeader = "x-pdr-forwarded-secret"

/** Headers for a loopback request made on behalf of the caller at `address`. */
export const headersFor = (address: string): Readonly<Record<string, string>> => ({
  [addressHeader]: address,
  [secretHeader]: secret
})

const vouched = (sent: string | undefined) => {
  if (sent === undefined) return false
  const bytes = Buffer.from(sent)
  return bytes.length === secretBytes.length && timingSafeEqual(bytes, secretBytes)
}

/** The address the request is limited by. */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest): string => {
  const own = Option.getOrElse(request.remoteAddress, () => "unknown")
  const forwarded = request.headers[addressHeader]
  return forwarded !== undefined && forwarded !== "" && vouched(request.headers[secretHeader]) ? forwarded : own
}
