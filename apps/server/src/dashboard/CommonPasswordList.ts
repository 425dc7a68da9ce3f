/**
 * The CommonPasswords port over the list of 49,233 common passwords shipped by `@zxcvbn-ts/language-common`
 * (its `dictionary["passwords-common"]`, a maintained package of the zxcvbn-ts project), compared lower-cased.
 */
import { CommonPasswords } from "@pdr/domain"
import { Effect, Layer } from "effect"

/**
 * The port, the list read once into a Set when a password is first checked (issue 22: the module and the Set, about
 * 3 MB of heap, are not loaded at start; most processes never check a password).
 */
export const layer = Layer.sync(CommonPasswords.CommonPasswords, () => {
  let listed: Promise<ReadonlySet<string>> | undefined
  const load = () =>
    import("@zxcvbn-ts/language-common").then(
      ({ dictionary }) => new Set((dictionary["passwords-common"] as ReadonlyArray<string>).map((p) => p.toLowerCase()))
    )
  return {
    includes: (password: string) =>
      Effect.map(
        Effect.promise(() => (listed ??= load())),
        (set) => set.has(password.toLowerCase())
      )
  }
})
