// Issue 20: the shipped provider catalogue's mappings added for social_network followers (and the other ops of this
// round). Each maps its actor's recorded-shape items (test/fixtures/provider/<actor>.json, built from the actor's
// documented output) to rows the op's row Schema accepts, with the values expected, and shows the actor input a
// request builds.
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import { unit } from "./support/Adapters.js"
import { mapped } from "./support/Catalogue.js"

const mapping = (key: string) => ProviderCatalogue.mappings[key]!

describe("ProviderCatalogue: social_network followers", () => {
  it("passes the check and is not also listed as unmapped", () => {
    const key = "social_network.followers"
    assert.isTrue(Either.isRight(Mapping.check(key, mapping(key))), key)
    assert.isFalse(key in ProviderCatalogue.unmapped, key)
  })

  it("social_network.followers (automation-lab~facebook-followers-following-scraper): one row per profile", () => {
    const { rows, errors } = mapped("social_network.followers")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      { position: 1, name: "Maria Lopez", profileUrl: "https://www.facebook.com/maria.lopez.5421" },
      { position: 2, name: "Kenji Watanabe", profileUrl: "https://www.facebook.com/profile.php?id=100089123456789" }
    ])
  })

  it("social_network.followers: the direction picks the list's URL and relationshipType; the default is followers", () => {
    const m = mapping("social_network.followers")
    const following = unit(
      "social_network",
      "followers",
      { subjects: ["LeonardoDiCaprio"], direction: "following", limit: 40 },
      "LeonardoDiCaprio"
    )
    assert.deepStrictEqual(Mapping.input(m.input, following), {
      startUrls: [{ url: "https://www.facebook.com/LeonardoDiCaprio/following" }],
      relationshipType: "following",
      maxItems: 40
    })
    const byDefault = unit("social_network", "followers", { subjects: ["nasa"] }, "nasa")
    assert.deepStrictEqual(Mapping.input(m.input, byDefault), {
      startUrls: [{ url: "https://www.facebook.com/nasa/followers" }],
      relationshipType: "followers",
      maxItems: 25
    })
  })

  it("social_network.followers: a profile without profileName has an empty name; one without profileUrl fails", () => {
    const m = mapping("social_network.followers")
    const [row] = Mapping.rowsOf(m, { profileUrl: "https://www.facebook.com/x.y", relationshipType: "followers" }, [])
    assert.deepStrictEqual(row, { name: "", profileUrl: "https://www.facebook.com/x.y" })
    const [bare] = Mapping.rowsOf(m, { profileName: "No URL" }, [])
    assert.strictEqual(bare?.["profileUrl"], null)
  })
})
