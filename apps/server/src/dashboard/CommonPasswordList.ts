/**
 * The CommonPasswords port over the list of 49,233 common passwords shipped by `@zxcvbn-ts/language-common`
 * (its `dictionary["passwords-common"]`, a maintained package of the zxcvbn-ts project), compared lower-cased.
 */
import { CommonPasswords } from "@pdr/domain"
import { dictionary } from "@zxcvbn-ts/language-common"
import { Effect, Layer } from "effect"

/** The port, the list read once into a Set. */
export const layer = Layer.sync(CommonPasswords.CommonPasswords, () => {
  const listed = new Set((dictionary["passwords-common"] as ReadonlyArray<string>).map((p) => p.toLowerCase()))
  return { includes: (password: string) => Effect.sync(() => listed.has(password.toLowerCase())) }
})
