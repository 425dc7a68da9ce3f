/**
 * The PasswordHasher port on node:crypto's scrypt (D20). Production cost is OWASP's (N=2^17, r=8, p=1: about 0.7 s
 * and 128 MiB per hash here), so `maxmem` is raised and at most `concurrency` hashes run at once; tests pass a lower N.
 * The hash carries its parameters: `scrypt$N$r$p$salt$hash` (base64url), so a change of cost keeps old hashes valid.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { PasswordHasher } from "@pdr/domain"
import { Effect, Layer } from "effect"

/** The scrypt cost parameters. */
export interface Cost {
  readonly logN: number
  readonly r: number
  readonly p: number
  /** Hashes allowed to run at once (each takes 128 * N * r bytes). */
  readonly concurrency: number
}

/** OWASP's minimum for scrypt. */
export const owasp: Cost = { logN: 17, r: 8, p: 1, concurrency: 2 }

const keyLength = 32

const derive = (password: string, salt: Buffer, N: number, r: number, p: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (e, key) =>
      resume(e ? Effect.die(e) : Effect.succeed(key))
    )
  })

/** The hasher at this cost. */
export const make = (cost: Cost) =>
  Effect.map(Effect.makeSemaphore(cost.concurrency), (semaphore) =>
    PasswordHasher.PasswordHasher.of({
      hash: (password) =>
        semaphore.withPermits(1)(
          Effect.suspend(() => {
            const salt = randomBytes(16)
            const N = 2 ** cost.logN
            return Effect.map(
              derive(password, salt, N, cost.r, cost.p),
              (key) => `scrypt$${N}$${cost.r}$${cost.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
            )
          })
        ),
      verify: (hash, password) => {
        const parts = hash.split("$")
        if (parts.length !== 6 || parts[0] !== "scrypt") return Effect.succeed(false)
        const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
        const expected = Buffer.from(parts[5] ?? "", "base64url")
        return semaphore.withPermits(1)(
          Effect.map(derive(password, Buffer.from(parts[4] ?? "", "base64url"), N, r, p), (key) =>
            key.length === expected.length ? timingSafeEqual(key, expected) : false
          )
        )
      }
    })
  )

/** The PasswordHasher port at this cost. */
export const layer = (cost: Cost = owasp) => Layer.effect(PasswordHasher.PasswordHasher, make(cost))
