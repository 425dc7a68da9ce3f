// Issue 20: completeness is never overstated. A delivery with every row asked, or that its upstream said is all there
// is, answers later requests for as many rows; one cut short answers only for the rows (or pages) it holds.
import { assert, describe, it } from "@effect/vitest"
import * as Catalogue from "../src/Catalogue.js"
import * as Completeness from "../src/Completeness.js"

const rows = (n: number, page = (_: number) => 1) =>
  Array.from({ length: n }, (_, i) => ({ position: i + 1, page: page(i) }))

describe("Completeness", () => {
  const reviews = Catalogue.findOp("maps", "reviews")!
  const search = Catalogue.findOp("web_search", "search")!

  it("rows: complete when every row asked came or the upstream said there are no more; else answers what it holds", () => {
    assert.strictEqual(Completeness.rowsAnswered(reviews, rows(10), 10, false), 10)
    assert.strictEqual(Completeness.rowsAnswered(reviews, rows(4), 10, true), 10, "all there is")
    assert.strictEqual(
      Completeness.rowsAnswered(reviews, rows(4), 10, false),
      4,
      "cut short: a request for 10 fetches again"
    )
    assert.strictEqual(Completeness.rowsAnswered(reviews, [], 10, false), 0)
    assert.isFalse(Completeness.complete(reviews, rows(4), 10, false))
  })

  it("pages: held counts result pages, not rows", () => {
    assert.strictEqual(
      Completeness.rowsAnswered(
        search,
        rows(15, (i) => (i < 10 ? 1 : 2)),
        3,
        false
      ),
      2
    )
    assert.strictEqual(
      Completeness.rowsAnswered(
        search,
        rows(20, (i) => (i < 10 ? 1 : 2)),
        2,
        false
      ),
      2
    )
  })
})
