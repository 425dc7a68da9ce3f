/**
 * The shipped provider catalogue's mappings for jobs_in, jobs_global (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

export const shipped = {} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "jobs_in.search":
    "no page read documents the three counts the row requires (applicants, views, vacancies, each a non-null count) together: prodiger/naukri-scraper lists its full output (jobId, postedDate, salaryMin, salaryMax, vacancy, ...) with no applicant or view count; thirdwatch/naukri-jobs-scraper shows applicant_count but no view or vacancy field; locaihost/naukri-jobs names applicants but no views or vacancies; tortuga/naukri-scraper (jobId, salaryMinLakhs, salaryMaxLakhs, postedAt) shows no count; abotapi/naukri-com-scraper says it gives view/apply counts with details on but shows not their field names; goat255/naukri-scraper shows jobId and a relative postedLabel only; hyperbach/naukri-jobs-history's output schema shows no count in its readable part. A count the actor does not give is not filled with a constant",
  "jobs_global.search":
    "no page read documents the input, the row fields (job key, employment type, remote flag, dated posting) and the price of one actor together (the country can now come from the request): v0iddo/indeed-scraper's fields (jobKey, remote, jobTypes, postedAt, salaryMin/Max/Period) are listed in its author's dev.to tutorial, but no readable page gives its input field names or its price; goat255/indeed-scraper (input query, location, country, maxItemsPerSearch; output isRemote, jobTypes, postedAt) shows no job key; wildorigins/indeed-jobs (input query, location, country, maxResults) shows remote and jobTypes but only a relative postedRelative and no job key; misceres/indeed-scraper (input position, country, location, maxItems) shows no output field names; truefetch/indeed-job-listing (input keyword, country as a name, max_results) shows job_type, is_remote, posted_date but no job key; atlasdata/indeed-jobs-scraper-reliable names its fields in prose only",
  "jobs_global.jobs":
    "no page read documents a lookup by job key with every card field (employment type, remote, posted date, salary min/max/period, description): glasswing/indeed-jobs-scraper (job keys accepted, salary parsed with period) and romy/indeed-job-detail-scraper take job keys but show not their output field names; cliqtomedia/indeed-scraper has a jobKeys input but shows no output fields; serpdata/indeed-scraper likewise; metalwarrior665/actor-indeed-scraper's source gives positionName, company, id, location, description only"
}
