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
  },
  // https://apify.com/thescrappa/indeed-jobs-scraper (Scrappa's "Indeed Jobs Scraper ($0.30/1k results)", pay per
  // event; its Store page is not in the stored copies). Its README, input schema and actor.json are published by the
  // author in github.com/userlip/scrappa-apify-actors (actors/indeed-jobs-scraper/.actor/README.md and
  // input_schema.json at commit 5708fb4, actor.json at commit e013cbc, whose title gives the price: $0.30 / 1,000
  // results; the repository's inventory lists the actor as thescrappa's indeed-jobs-scraper, OVlDREBAcO4iPyW64, pay
  // per event). Input: `query`, `location` ("City, state, region, or remote location"), `country` ("Two-letter
  // country code such as US, GB, CA, AU, DE, or FR"), `radius`, `radius_unit`, `job_type` (full_time, part_time,
  // contract, internship or remote), `sort` (relevance or date), `limit` ("Results per request, 1 to 100"),
  // `cursor`, `hl`, `gl`. Output (the README's dataset example, one item per job of `data.jobs`): id, title,
  // company_name, company { name, website }, location_formatted ("New York, NY"), location { city, state, country,
  // formatted, is_remote }, salary { min, max, currency, unit }, attributes (["Full-time"]), date_published
  // ("2026-05-01 12:00:00"), apply_url ("https://www.indeed.com/viewjob?jk=..."). One request, one page of `limit`
  // jobs (no cursor is followed); a run fails (Actor.fail) rather than pushing error items.
  "jobs_global.search": {
    actor: "thescrappa~indeed-jobs-scraper",
    docs: "https://apify.com/thescrappa/indeed-jobs-scraper",
    usdPerItem: 0.0003,
    input: {
      query: "$query",
      location: "$request.location",
      country: "$request.country",
      // one employment type asked is the actor's job_type; several (or none) leave it out: every type comes back
      job_type: {
        $value: "request.employmentType",
        map: { full_time: "full_time", part_time: "part_time", contract: "contract", internship: "internship" }
      },
      sort: { $value: "request.sort", map: { relevance: "relevance", newest: "date" } },
      limit: "$rows"
    },
    rows: {
      // the job key is the jk of the Indeed job URL (the README's form), else the item's id
      jobKey: {
        first: [
          { path: "apply_url", match: "[?&]jk=([A-Za-z0-9]+)" },
          { path: "id", as: "string" }
        ]
      },
      title: "title",
      company: { first: ["company_name", "company.name"] },
      location: { first: ["location_formatted", "location.formatted"] },
      country: { request: "country" },
      employmentType: {
        path: "attributes",
        match: "(Full-time|Part-time|Contract|Internship)",
        map: { "Full-time": "full_time", "Part-time": "part_time", Contract: "contract", Internship: "internship" },
        default: ""
      },
      remote: { path: "location.is_remote", as: "boolean" },
      postedAt: { path: "date_published", as: "datetime" }
    },
    // the actor's source (src/indeed-params.ts at 6eebfccb) merges its default input, location "New York", under
    // every input and drops empty strings, so no input asks for a whole country: a request without a location is
    // refused here rather than answered with New York's jobs as the country's
    requires: {
      location:
        "the actor searches New York when no location is given (its default input, merged under every input), so a country-wide search cannot be asked"
    },
    notMapped:
      "employmentType is the first of the job's attributes that names a type the actor documents (Full-time, Part-time, Contract, Internship), empty when none does (a temporary job's label is not documented). jobKey is the jk parameter of apply_url (the README's https://www.indeed.com/viewjob?jk=... form), else the item's id (the README does not say whether id is the job key). country is the country searched (the request's), not read from the job. postedAt is date_published read as UTC (the README's form \"2026-05-01 12:00:00\" names no zone). remote is location.is_remote; an item without it fails the unit. Request fields: employmentType is sent as job_type only when it names one type the actor takes (temporary has no counterpart); workplace is not sent (the actor's remote job_type would replace the employment type), each row carries its remote flag; postedWithin is not sent (the actor documents no date filter). location is required here: the actor's source (src/indeed-params.ts) merges its default input (location New York, country US) under every input and drops empty strings, so a request without a location would be searched at New York; it is refused 400 naming request.location before anything is spent. The actor asks one page of up to limit jobs and follows no cursor (has_more is in its key-value store, not its dataset), so a page shorter than asked is taken as the end of the results. The actor documents no error items (a failed request fails the run), so the default error paths are kept"
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "jobs_global.jobs":
    "no page read documents a lookup by job key with every card field (employment type, remote, posted date, salary min/max/period, description): glasswing/indeed-jobs-scraper (job keys accepted, salary parsed with period) and romy/indeed-job-detail-scraper take job keys but show not their output field names; cliqtomedia/indeed-scraper has a jobKeys input but shows no output fields; serpdata/indeed-scraper likewise; metalwarrior665/actor-indeed-scraper's source gives positionName, company, id, location, description only; in the fourth round: glasswing/indeed-jobs-scraper's changelog (https://apify.com/glasswing/indeed-jobs-scraper/changelog) says job URLs and bare job keys fetch that posting (a free not_found row when it is gone; every row carries status) with the full description and the salary parsed with period and currency, but no page read names its input keys, row fields or price; romy/indeed-job-detail-scraper (by key, from $0.78 / 1,000 job details) shows neither its input nor its output on the readable part of https://apify.com/romy/indeed-job-detail-scraper.md. The row's salary is a { min, max, period } object, which a field spec cannot build from separate fields; in the sixth round serpdata/indeed-scraper's page (https://apify.com/serpdata/indeed-scraper) says jobs can be looked up by their job key and come with the full description and pay, but neither the key input nor the description and salary keys are in the part read (its example task names title, company.name, location.text, salary.text, jobTypes, remote, datePublished, url); romy/indeed-job-detail-scraper's input is jobKeys (https://apify.com/romy/indeed-job-detail-scraper/api/cli) but its output keys are still not readable; in the seventh round: thescrappa/indeed-jobs-scraper, which now serves search (its README in github.com/userlip/scrappa-apify-actors), takes a query, not a job key or a job URL, and none of the other actors of that repository looks up an Indeed job by key; in the eighth round (a unit's subject is the job key, the jk or vjk of a job URL, so an input can be built as https://www.indeed.com/viewjob?jk={subject} for any actor documented to take Indeed job URLs, and the mapping language now builds the salary object from separate fields with an object spec; what is missing is per actor its output keys): apt_marble/indeed-job-listings-scraper-by-url (https://apify.com/apt_marble/indeed-job-listings-scraper-by-url: input job_urls, Indeed viewjob URLs, regional domains supported; one record per URL with 27 fields; $2.50 / 1,000 results) names none of its output keys on the readable part of its page or of its API description; tidytools/indeed-job-details (https://apify.com/tidytools/indeed-job-details: input urls, viewjob URLs of any Indeed country site; title, employer, location, job type, salary text, description and job URL, unshown pay null; from $8.00 / 1,000 extracted pages) names its fields in prose only and gives no posted date or remote flag; autoscraping/indeed-collect-by-url (https://apify.com/autoscraping/indeed-collect-by-url/api/javascript: input urls of viewjob URLs; $4.00 / 1,000 results) shows no output key; henrycrawl/indeed-jobs-scraper (https://apify.com/henrycrawl/indeed-jobs-scraper: jobKey, salaryMin, salaryMax, salaryPeriod, isRemote; from $5.00 / 1,000) and v0iddo/indeed-scraper (its tutorial https://dev.to/voiddo_96373886e24/indeed-jobs-scraper-how-to-get-listings-salary-company-rating-remote-as-json-or-csv-python-4n0g: jobKey, salaryMin, salaryMax, salaryPeriod, postedAt, remote, jobTypes) serve searches, and no page read says they take a job URL or key; shadowextractor/indeed-jobs-intelligence-scraper has a direct-details mode but is paid per usage (no per-result price); scrapapi/indeed-scraper (https://apify.com/scrapapi/indeed-scraper/api/javascript: position, location and startUrls with a viewjob URL; from $2.99 / 1,000 results) and its twins scrapepilotapi and scrapeflow/indeed-scraper (the same input example) show no output key on any page read; plumblinedata/indeed-jobs-scraper's output schema (https://apify.com/plumblinedata/indeed-jobs-scraper/output-schema: jobKey, title, url, company, location, isRemote, salaryText, salaryMin, salaryMax, ...; type job or error; from $3.00 / 1,000 job results) comes with a keyword and location search only (its changelog: one row per search listing), no job URL input read; misceres/indeed-scraper ($5.00 / 1,000 results; startUrls of Indeed URLs in a maintainer's reply, https://apify.com/misceres/indeed-scraper/issues/starturls-array-not-ajs2iei8rTiZ5zFOv) has its output keys (positionName, postingDateParsed, ...) only in third-party code, not on a page of its own that was read; osamih/indeed-scraper (start URLs including a single job URL) is paid per usage and under maintenance"
}
