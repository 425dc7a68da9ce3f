/**
 * The shipped provider catalogue's mappings for jobs_in, jobs_global (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

export const shipped = {} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "jobs_in.search":
    "no page read documents the three counts the row requires (applicants, views, vacancies, each a non-null count) together with a job id and a dated posting: tortuga/naukri-scraper (input keywords, location, sortBy, maxItems, includeDetails) shows jobId, salaryMinLakhs, salaryMaxLakhs, experienceText, postedAt but no views or vacancies; prodiger/naukri-scraper shows vacancy but no applicant or view count; abotapi/naukri-com-scraper says it gives view/apply counts with details on but shows not their field names; goat255/naukri-scraper shows jobId and a relative postedLabel only; blackfalcondata/naukri-jobs-feed (its field list on dev.to) shows applyCount but no views or vacancy field; thirdwatch-dev/naukri-scraper and shahidirfan100's Naukri source give neither a job id nor any count",
  "jobs_global.search":
    "no page read documents every row field: the row needs the job's ISO country, and neither do the actors show one nor can a row field copy the request's country (the mapping language reads rows only from the item). Checked: v0iddo/indeed-scraper (jobKey, remote, jobTypes, postedAt; no country), smorgi_apps/indeed-jobs-scraper (id, jobType, isRemote, postedAt 'ISO date when parseable, else relative text'; country only as an input domain), goat255/indeed-scraper (isRemote, jobTypes, postedAt; no job key or country shown), usestring/indeed-jobs (a country field but no employment type or remote flag shown), absolute-mr-wolf/absolute-jobs-scraper (location_country, employment_type, is_remote, date_posted, but only a `query` input documented and ids mixed with other boards)",
  "jobs_global.jobs":
    "no page read documents a lookup by job key with every card field (country, employment type, remote, posted date, salary min/max/period, description): romy/indeed-job-detail-scraper, serpdata/indeed-scraper and glasswing/indeed-jobs-scraper take job keys but show not their output field names; metalwarrior665/actor-indeed-scraper's source gives positionName, company, id, location, description only"
}
