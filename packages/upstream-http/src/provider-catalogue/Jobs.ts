/**
 * The shipped provider catalogue's mappings for jobs_in, jobs_global (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

export const shipped = {
  // https://apify.com/prodiger/naukri-scraper ("Naukri Job Scraper (Pay-Per-Event)"), read on its changelog
  // https://apify.com/prodiger/naukri-scraper/changelog.md (0.1.0, 2026-06-02), which lists its whole interface. Input:
  // `keyword` and `location` (each a string or a list; keywords x locations run in one job), `maxJobs` (1-5000),
  // `experienceMin`, `experienceMax`, `salaryMin`, `workMode` (any/remote/hybrid/office), `sortBy` (relevance/date),
  // `maxRequestRetries`, `proxyConfiguration`. Output: jobId, jobUrl, title, companyName, companyUrl, companyLogoUrl,
  // companyRating, companyReviewsCount, ambitionBoxUrl, location, workMode, isRemote, isHybrid, experienceText,
  // experienceMin, experienceMax, salary, salaryMin, salaryMax, salaryCurrency, skills, skillsCount, jobDescription,
  // postedDate, postedDateRelative, postedDaysAgo, applyByDate, vacancy, keyword, locationSearched, searchUrl,
  // scrapedAt; deduplicated by jobId within a run. Price: `job_scraped` $0.002 (charged after the item is pushed) and
  // `actor_start` $0.001.
  "jobs_in.search": {
    actor: "prodiger~naukri-scraper",
    docs: "https://apify.com/prodiger/naukri-scraper",
    usdPerItem: 0.002,
    usdPerRun: 0.001,
    input: {
      keyword: "$query",
      // the actor's location takes a string or a list (keywords x locations run in one job); none given: left out
      location: "$request.locations",
      maxJobs: "$rows",
      sortBy: { $value: "request.sort", map: { relevance: "relevance", newest: "date" } },
      workMode: { $value: "request.workplace", map: { onsite: "office", remote: "remote", hybrid: "hybrid" } }
    },
    rows: {
      jobId: { path: "jobId", as: "string" },
      title: "title",
      company: "companyName",
      location: "location",
      experience: { path: "experienceText", as: "string", default: "" },
      vacancies: { path: "vacancy", as: "integer" },
      url: "jobUrl",
      postedAt: { path: "postedDate", as: "datetime" },
      details: { path: "jobDescription", as: "string", default: "" }
    },
    notMapped:
      "applicants and views: the actor documents no applicant or view count; null. vacancies is the actor's vacancy (null when it gives none). salaryLakhs: the actor's salaryMin and salaryMax are documented by name only, beside a salaryCurrency, without their unit (rupees or lakhs), so they are not converted; null. postedAt is read from postedDate (its form is not documented: ISO, YYYY-MM-DD or epoch is read, anything else fails the unit). details is the actor's jobDescription, empty when it gives none (the actor documents no switch, so fetchDetails changes nothing). locations are sent as the actor's location (a list; left out when the caller gives none, so the actor's own default applies). Request fields not sent: experience (the actor takes a range, experienceMin/experienceMax, whose match rule is not documented), salaryMin (no unit documented), salaryMax, postedWithin, department, roleCategory, industry, companyType, topCompanies, ugCourse, pgCourse and postedBy (no such input); workplace is sent as workMode only when it names one mode (onsite as office; temporary_wfh has no counterpart), else the actor's own default (any) applies; sort newest is sortBy date. The actor documents no error items, so the default error paths are kept"
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "jobs_global.search":
    "no page read documents the input, the row fields (job key, employment type, remote flag, dated posting) and the price of one actor together (the country can now come from the request): v0iddo/indeed-scraper's fields (jobKey, remote, jobTypes, postedAt, salaryMin/Max/Period) are listed in its author's dev.to tutorial, but no readable page gives its input field names or its price; goat255/indeed-scraper (input query, location, country, maxItemsPerSearch; output isRemote, jobTypes, postedAt) shows no job key; wildorigins/indeed-jobs (input query, location, country, maxResults) shows remote and jobTypes but only a relative postedRelative and no job key; misceres/indeed-scraper (input position, country, location, maxItems) shows no output field names; truefetch/indeed-job-listing (input keyword, country as a name, max_results) shows job_type, is_remote, posted_date but no job key; atlasdata/indeed-jobs-scraper-reliable names its fields in prose only (this round, the row can take the country from the request and translate job types, but the gap is a documented input and price: v0iddo/indeed-scraper's fields are confirmed again in https://dev.to/voiddo_96373886e24/indeed-jobs-scraper-how-to-get-listings-salary-company-rating-remote-as-json-or-csv-python-4n0g (jobKey, title, company, location, remote, jobTypes, postedAt, salaryMin/Max/Period, jobUrl), and the stored copies hold none of its Apify sub-pages; lowlanddata/indeed-scraper (inputs what, country, where; from $3.70 / 1,000) names employment types and remote flags in prose only; truefetch/indeed-job-search's output-schema shows title, posted_date, location, is_remote, job_type, platform_url but no job key or company in its readable part; blackfalcondata/indeed-scraper (query, maxResults; from $2.00 / 1,000) and mlg14/indeed-scraper (query, country, location; $4.00 / 1,000) show no output field names; atlasdata/indeed-jobs-scraper-reliable ($0.06 / 1,000 and a $0.0005 start, https://dev.to/atlasdata/how-to-pull-indeed-job-data-via-api-60-countries-parsed-salary-apply-urls-4h3i) names its fields in prose only; henrycrawl/indeed-jobs-scraper (https://apify.com/henrycrawl/indeed-jobs-scraper, from $5.00 / 1,000 job postings) lists jobKey, title, company, location, isRemote and salary fields but gives the posting as an age in days, and its input and employment type field are not in the readable part; in the fourth round: goat255/indeed-scraper's example task (https://apify.com/goat255/indeed-scraper/examples/monitor-indeed-jobs-on-a-daily-schedule.md) documents its input (query, location, country as \"us\", maxItemsPerSearch, datePosted, remoteOnly, sort) and output labels (type, title, company, location, isRemote, salary, jobTypes, postedRelative, postedAt, url) but no job key (only inside a url whose form is not shown) and no price; innolabs/indeed-scraper's changelog (https://apify.com/innolabs/indeed-scraper/changelog.md: $0.045 / 1,000 jobs, positions x locations, country, every filter of the op) and plumblinedata/indeed-jobs-scraper's (error rows with errorCode, a remote flag, exact post time) name their row fields in prose only; automation-lab/indeed-scraper's changelog documents datePosted as ISO 8601 and salaryMin/salaryMax/salaryCurrency/salaryPeriod but not its job key, job type and remote field names; schnellscrapers/indeed-remote-jobs (jobKey, postedAt, remote, jobTypes; $3.49 / 1,000) serves remote jobs of the last 3 days only; utils/indeed-jobs-scraper (input queries, location, datePosted, maxRecords; from $0.07 / 1,000) names its fields in prose only; misceres/indeed-scraper's open-source predecessor (github.com/metalwarrior665/actor-indeed-scraper, src/main.ts) outputs positionName, salary, company, location, rating, reviewsCount, url, id, postedAt (a relative text), description, externalApplyLink: no job type, no remote flag, no dated posting)",
  "jobs_global.jobs":
    "no page read documents a lookup by job key with every card field (employment type, remote, posted date, salary min/max/period, description): glasswing/indeed-jobs-scraper (job keys accepted, salary parsed with period) and romy/indeed-job-detail-scraper take job keys but show not their output field names; cliqtomedia/indeed-scraper has a jobKeys input but shows no output fields; serpdata/indeed-scraper likewise; metalwarrior665/actor-indeed-scraper's source gives positionName, company, id, location, description only; in the fourth round: glasswing/indeed-jobs-scraper's changelog (https://apify.com/glasswing/indeed-jobs-scraper/changelog) says job URLs and bare job keys fetch that posting (a free not_found row when it is gone; every row carries status) with the full description and the salary parsed with period and currency, but no page read names its input keys, row fields or price; romy/indeed-job-detail-scraper (by key, from $0.78 / 1,000 job details) shows neither its input nor its output on the readable part of https://apify.com/romy/indeed-job-detail-scraper.md. The row's salary is a { min, max, period } object, which a field spec cannot build from separate fields"
}
