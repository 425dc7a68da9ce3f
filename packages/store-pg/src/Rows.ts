/** Conversions of what the driver returns (bigint and count as strings, timestamptz as Date). */
import { DateTime, Option } from "effect"

/** A bigint/numeric column as a number. */
export const num = (v: unknown): number => (typeof v === "number" ? v : Number(v))

/** A timestamptz column as a UTC DateTime. */
export const utc = (v: unknown): DateTime.Utc => DateTime.unsafeMake(v as Date)

/** A nullable timestamptz column as an optional UTC DateTime. */
export const optionalUtc = (v: unknown): Option.Option<DateTime.Utc> =>
  v === null || v === undefined ? Option.none() : Option.some(utc(v))

/** A timestamptz column as a Date. */
export const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)))
