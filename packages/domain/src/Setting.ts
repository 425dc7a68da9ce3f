/**
 * A numeric setting read from the environment with its default and its range, refused at start with a message that
 * names it (`REFRESH_BATCH must be at least 1`): a value out of range otherwise starts a process that hangs or refuses
 * everything (a pool of -3 connections waited for ever at the first statement; a rate limit burst of 0 answered every
 * call 429). One helper for every package that reads a number (issue 19, stop 48).
 */
import { Config } from "effect"

/** An integer setting: `fallback` when unset, refused below `least` (or above `most`). */
export const integer = (
  name: string,
  fallback: number,
  range: { readonly least: number; readonly most?: number },
  read: Config.Config<number> = Config.integer(name)
): Config.Config<number> => within(name, fallback, range, read)

/** A number setting (a rate): `fallback` when unset, refused at or below `above`. */
export const numberAbove = (name: string, fallback: number, above: number): Config.Config<number> =>
  Config.number(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be above ${above}`, validation: (n) => n > above })
  )

/** A number setting: `fallback` when unset, refused outside `least` to `most`. */
export const number = (
  name: string,
  fallback: number,
  range: { readonly least: number; readonly most?: number }
): Config.Config<number> => within(name, fallback, range, Config.number(name))

const within = (
  name: string,
  fallback: number,
  range: { readonly least: number; readonly most?: number },
  read: Config.Config<number>
) =>
  read.pipe(
    Config.withDefault(fallback),
    Config.validate({
      message:
        range.most === undefined
          ? `${name} must be at least ${range.least}`
          : `${name} must be ${range.least} to ${range.most}`,
      validation: (n) => n >= range.least && (range.most === undefined || n <= range.most)
    })
  )
