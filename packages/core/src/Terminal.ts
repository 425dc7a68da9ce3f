/**
 * Text for an operator's terminal, or for a pipe or a log file (the runner, `pnpm admin`): @effect/cli writes its help
 * and its argument errors with a terminal's colour and style codes whatever the output is; where they would show as
 * escape codes (the stream is not a terminal) or are not wanted (`NO_COLOR` set, no-color.org) they are left out.
 */
import type { Console } from "effect"

/** A terminal's colour and style codes (SGR: ESC [ ... m). */
const styles = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")

/** The text without its colour and style codes. */
export const plain = (text: string): string => text.replace(styles, "")

/** Whether a stream gets plain text: it is not a terminal, or NO_COLOR is set. */
export const plainOn = (stream: NodeJS.WriteStream): boolean =>
  stream.isTTY !== true || (process.env["NO_COLOR"] ?? "") !== ""

/** The console with its text written without styles on the streams that get plain text (stdout, stderr). */
export const plainWhereNeeded = (console: Console.Console): Console.Console => {
  const strip =
    (toPlain: boolean) =>
    (args: ReadonlyArray<unknown>): Array<unknown> =>
      toPlain ? args.map((a) => (typeof a === "string" ? plain(a) : a)) : [...args]
  const out = strip(plainOn(process.stdout))
  const err = strip(plainOn(process.stderr))
  return {
    ...console,
    log: (...args) => console.log(...out(args)),
    info: (...args) => console.info(...out(args)),
    error: (...args) => console.error(...err(args)),
    warn: (...args) => console.warn(...err(args))
  }
}
