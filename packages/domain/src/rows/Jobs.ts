/** Rows of the two job boards. */
import { Schema } from "effect"
import * as R from "./Row.js"

/** A job of job board A (each row of search; `subject` is the job id). */
export const jobIn = {
  position: R.position,
  jobId: R.str("numeric job id"),
  title: R.str("job title"),
  company: R.str("hiring company"),
  location: R.str("job location"),
  experience: R.str("experience asked, e.g. 2-8 years"),
  salaryLakhs: R.nullable(
    Schema.Struct({
      min: R.num("lowest yearly salary, in lakh INR"),
      max: R.num("highest yearly salary, in lakh INR")
    }).annotations({
      description:
        "yearly salary range, in lakh INR; null when not disclosed, or when the source gives it in no stated unit"
    })
  ),
  applicants: R.nullable(R.count("applicants so far; null when the source does not measure it")),
  views: R.nullable(R.count("views of the job page; null when the source does not measure it")),
  vacancies: R.nullable(R.count("open positions; null when the source does not measure it")),
  url: R.url("job page URL"),
  postedAt: R.dateTime("when the job was posted"),
  details: R.optional(R.str("job description (present when fetchDetails is true)"))
}

/** History metrics of a job of board A. */
export const jobInMetrics = {
  applicants: R.field("applicants"),
  views: R.field("views"),
  vacancies: R.field("vacancies")
}

const jobGlobalBase = {
  jobKey: R.str("job key"),
  title: R.str("job title"),
  company: R.str("hiring company"),
  location: R.str("job location"),
  country: R.str("ISO 3166-1 alpha-2 country of the job board"),
  employmentType: R.str("employment type, e.g. full_time"),
  remote: R.bool("whether the job is remote"),
  postedAt: R.dateTime("when the job was posted")
}

/** A job card of board B (jobs). */
export const jobGlobal = {
  ...jobGlobalBase,
  salary: R.nullable(
    Schema.Struct({
      min: R.num("lowest salary, in the country's currency"),
      max: R.num("highest salary, in the country's currency"),
      period: R.str("period the salary is paid for, e.g. year")
    }).annotations({ description: "salary range; null when not disclosed" })
  ),
  description: R.str("job description")
}

/** A job of board B found by a search (search). */
export const jobGlobalFound = { position: R.position, ...jobGlobalBase }
