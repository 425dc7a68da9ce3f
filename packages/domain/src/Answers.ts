/**
 * The JSON text of an op answer (D4), one renderer for a live answer and a kept one (D16): the kept answer of an
 * idempotent paid call is data, the answer without its cost and the cost its settle computed
 * (`{"answer": {...}, "cost": {...}}`, written by the settle in its transaction), rendered here as the live answer is.
 */
import { Predicate } from "effect"

/**
 * The JSON of answer rows and coverage items served from the store: a stored view's rows and its coverage item are
 * frozen and shared by every call that reads them (Coverage.storedView, Measure's stored unit), so each is serialized
 * once; any other is serialized each time.
 */
const rowJson = new WeakMap<object, string>()
const jsonOfRow = (row: object): string => {
  if (textMembers in row) return spliced(row as Readonly<Record<string, unknown>>)
  if (!Object.isFrozen(row)) return JSON.stringify(row)
  let json = rowJson.get(row)
  if (json === undefined) {
    json = JSON.stringify(row)
    rowJson.set(row, json)
  }
  return json
}

/** An array member's JSON as JSON.stringify writes it inside the array (a frozen object's kept text). */
const jsonOfItem = (item: unknown): string =>
  item instanceof JsonText
    ? item.text
    : typeof item === "object" && item !== null && !("toJSON" in item)
      ? jsonOfRow(item)
      : (JSON.stringify(item) ?? "null")

/**
 * A value carried as its JSON text (issue 22, d: a stored history's points are written as JSON by the store and put in
 * the answer as they are, instead of thousands of point objects built and then serialized): `text` is its JSON,
 * `value` the value, parsed once when something reads it as data; JSON.stringify writes it as its value, so an answer
 * is the same JSON however it is written.
 */
export class JsonText<A> {
  #text: string | undefined
  #value: A | undefined
  #parsed: boolean
  private constructor(text: string | undefined, value: A | undefined, parsed: boolean) {
    this.#text = text
    this.#value = value
    this.#parsed = parsed
  }
  /** From its JSON text, as the store wrote it (trusted to be JSON: it is parsed only when read as data). */
  static fromText<A>(text: string): JsonText<A> {
    return new JsonText<A>(text, undefined, false)
  }
  /** From a value (its text is written when asked for). */
  static of<A>(value: A): JsonText<A> {
    return new JsonText<A>(undefined, value, true)
  }
  get text(): string {
    if (this.#text === undefined) this.#text = JSON.stringify(this.#value)
    return this.#text
  }
  get value(): A {
    if (!this.#parsed) {
      this.#value = JSON.parse(this.#text as string) as A
      this.#parsed = true
    }
    return this.#value as A
  }
  toJSON(): A {
    return this.value
  }
}

/** Marks a row whose members may be `JsonText`. */
const textMembers: unique symbol = Symbol("@pdr/domain/Answers/textMembers")

/** A row some of whose members are `JsonText`: the answer writes their text as it is (JSON.stringify, their value). */
export const withText = <R extends object>(row: R): R => Object.defineProperty(row, textMembers, { value: true })

/** A row marked by `withText`, written member by member as JSON.stringify writes it (undefined members left out). */
const spliced = (row: Readonly<Record<string, unknown>>): string => {
  let out = ""
  for (const key of Object.keys(row)) {
    const value = row[key]
    const json = value instanceof JsonText ? value.text : JSON.stringify(value)
    if (json !== undefined) out += `${out === "" ? "" : ","}${JSON.stringify(key)}:${json}`
  }
  return `{${out}}`
}

/**
 * A 200 op answer's JSON text: `data` first, then the other members in their order, as JSON.stringify writes the
 * object. The answer is built by the domain to the `OpResponse` shape the API publishes and written as it is (the e2e
 * tests validate every answer against the OpenAPI document), its stored rows and `coverage` items from their kept JSON
 * (issue 22: the coverage of a stored 10-subject call was written anew on every call).
 */
export const text = (body: { readonly data: ReadonlyArray<object> } & Readonly<Record<string, unknown>>): string =>
  parts(body).join("")

/**
 * The answer's JSON text (`text`) in parts, in order: one per row, one per other member, and the punctuation between
 * (issue 22, d: an answer of 10 histories is about 400 KB; joined by `+` it is a rope that every encoding flattens
 * into one large string first, which costs more than encoding the parts one by one).
 */
export const parts = (
  body: { readonly data: ReadonlyArray<object> } & Readonly<Record<string, unknown>>
): Array<string> => {
  const out: Array<string> = ['{"data":[']
  const data = body.data
  for (let i = 0; i < data.length; i++) {
    if (i > 0) out.push(",")
    out.push(jsonOfItem(data[i]))
  }
  let tail = "]"
  for (const key of Object.keys(body)) {
    if (key === "data") continue
    const value = body[key]
    let json: string | undefined
    if (key === "coverage" && Array.isArray(value)) {
      json = "["
      for (let i = 0; i < value.length; i++) json += i === 0 ? jsonOfItem(value[i]) : `,${jsonOfItem(value[i])}`
      json += "]"
    } else json = JSON.stringify(value)
    // JSON.stringify leaves out a member it cannot write (undefined, a function, a symbol)
    if (json !== undefined) tail += `,${JSON.stringify(key)}:${json}`
  }
  out.push(`${tail}}`)
  return out
}

/** The answer without its cost, as the settle keeps it (`coverage` and the envelope follow `data`). */
export const withoutCost = (
  data: ReadonlyArray<object>,
  coverage: ReadonlyArray<object>,
  envelope: Readonly<Record<string, unknown>>
): string => text({ data, coverage, ...envelope })

/** A kept record as the settle writes it. */
export interface Kept {
  readonly answer: { readonly data: ReadonlyArray<object>; readonly coverage: unknown } & Record<string, unknown>
  readonly cost: { readonly creditsCharged: number; readonly creditsRemaining: number }
}

/** Whether a kept body (its JSON text, or parsed) is a settle's record rather than an answer kept as it was sent. */
export const isKept = (body: unknown): body is Kept =>
  Predicate.isRecord(body) &&
  Object.keys(body).length === 2 &&
  Predicate.isRecord(body["answer"]) &&
  Array.isArray(body["answer"]["data"]) &&
  Predicate.isRecord(body["cost"])

/** A kept record, parsed when it is text; undefined when the body is not one. */
export const keptOf = (body: unknown): Kept | undefined => {
  const parsed = typeof body === "string" ? (JSON.parse(body) as unknown) : body
  return isKept(parsed) ? parsed : undefined
}

/** The answer a kept record stands for, with its cost where a live answer has it (after `data`). */
export const answerOf = (kept: Kept): { readonly data: ReadonlyArray<object> } & Record<string, unknown> => {
  const { data, ...rest } = kept.answer
  return { data, cost: kept.cost, ...rest }
}

/** A kept record's HTTP body: the live answer's text. */
export const renderKept = (kept: Kept): string => text(answerOf(kept))
