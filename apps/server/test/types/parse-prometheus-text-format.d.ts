// parse-prometheus-text-format 1.1.1 ships no types; its output is prom2json's shape (its README's example)
declare module "parse-prometheus-text-format" {
  interface Sample {
    readonly labels?: Record<string, string>
    readonly value?: string
    readonly buckets?: Record<string, string>
    readonly count?: string
    readonly sum?: string
  }
  interface Family {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: ReadonlyArray<Sample>
  }
  const parse: (text: string) => ReadonlyArray<Family>
  export default parse
}
