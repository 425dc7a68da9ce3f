/** The catalogue's data of jobs_in: ops, prices, windows, fields and rows. */
import { Schema } from "effect"
import * as F from "../../Fields.js"
import { PriceRule } from "../../Pricing.js"
import * as Jobs from "../../rows/Jobs.js"
import { history, query } from "../Common.js"
import { jobsInJob } from "../Forms.js"
import { op, platform } from "../Model.js"

/** The jobs_in platform. */
export const jobsIn = platform("jobs_in", "Job board A (India).", "none", [
  op("search", {
    rows: Jobs.jobIn,
    description: "Jobs for a keyword or pasted search URL; bills a minimum of 50 rows.",
    price: PriceRule.MinimumRows({ credits: 97, rows: 50, minimum: 50 }),
    fields: {
      query,
      postedWithin: F.withDefault(F.JobsWindow, "any"),
      sort: F.withDefault(F.oneOf("relevance", "newest"), "relevance"),
      experience: F.withDefault(F.Experience, "all"),
      workplace: F.list(F.oneOf("onsite", "remote", "hybrid", "temporary_wfh")),
      salaryMin: F.optional(F.int(0, 1000)),
      salaryMax: F.optional(F.int(0, 1000)),
      locations: F.list(F.text(60)),
      department: F.list(F.NumericId),
      roleCategory: F.list(F.NumericId),
      industry: F.list(F.NumericId),
      companyType: F.list(F.NumericId),
      topCompanies: F.list(F.NumericId),
      ugCourse: F.list(F.NumericId),
      pgCourse: F.list(F.NumericId),
      postedBy: F.list(F.oneOf("company", "consultant")),
      fetchDetails: F.withDefault(Schema.Boolean, true),
      limit: F.limit(50, 50, 200)
    },
    checkJsonSchema: { description: "`salaryMax` must not be below `salaryMin`" },
    check: (r) =>
      typeof r["salaryMin"] === "number" && typeof r["salaryMax"] === "number" && r["salaryMax"] < r["salaryMin"]
        ? { path: ["salaryMax"], message: "must not be below salaryMin" }
        : true
  }),
  history(jobsInJob, Jobs.jobInMetrics)
])
