/** The catalogue's data of contacts: ops, prices, windows, fields and rows. */
import { Schema } from "effect"
import * as F from "../../Fields.js"
import { PriceRule } from "../../Pricing.js"
import * as Special from "../../rows/Special.js"
import { contactPerson } from "../Forms.js"
import { OpKinds, op, platform } from "../Model.js"

/** The contacts platform. */
export const contacts = platform(
  "contacts",
  "Contact reveal: emails and phones of professional profiles, per org.",
  "none",
  [
    op("reveal", {
      rows: Special.contactDelivery,
      answerRow: Special.contactRow,
      description: "Email and phone per person; owned parts free, nothing-on-file never bought again.",
      kind: OpKinds.Reveal({ parts: ["email", "phone"] }),
      price: PriceRule.PerPart({ parts: { email: 18, phone: 87 } }),
      subjects: contactPerson,
      fields: {
        subjects: F.subjects(contactPerson, 10),
        reveal: F.withDefault(
          Schema.Array(F.oneOf("email", "phone")).pipe(
            Schema.minItems(1, { message: () => "must name at least one part" }),
            Schema.maxItems(2, { message: () => "must name at most two parts" })
          ),
          ["email", "phone"]
        )
      }
    })
  ]
)
