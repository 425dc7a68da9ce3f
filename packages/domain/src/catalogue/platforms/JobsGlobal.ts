/** The catalogue's data of jobs_global: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as Jobs from "../../rows/Jobs.js"
import { location, perRows, perSubject, query } from "../Common.js"
import { jobsGlobalCountry, jobsGlobalJob } from "../Forms.js"
import { DAY, op, platform } from "../Model.js"

/** The jobs_global platform. */
export const jobsGlobal = platform("jobs_global", "Job board B (multi-country).", "none", [
  op("search", {
    rows: Jobs.jobGlobalFound,
    description: "Jobs matching a query in one country.",
    price: perRows(1, 20),
    fields: {
      query,
      location: F.optional(location),
      country: jobsGlobalCountry,
      workplace: F.list(F.oneOf("remote")),
      employmentType: F.list(F.oneOf("full_time", "part_time", "contract", "internship", "temporary")),
      postedWithin: F.withDefault(F.JobsWindow, "any"),
      sort: F.withDefault(F.oneOf("relevance", "newest"), "relevance"),
      limit: F.limit(20, 1, 100)
    }
  }),
  op("jobs", {
    rows: Jobs.jobGlobal,
    description: "Job cards by key or URL.",
    price: perSubject(1),
    fresh: 3 * DAY,
    subjects: jobsGlobalJob,
    fields: { subjects: F.subjects(jobsGlobalJob, 10), country: jobsGlobalCountry }
  })
])
