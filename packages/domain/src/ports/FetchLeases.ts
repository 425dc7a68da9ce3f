/**
 * Port: the fetch of a unit taken by one process for a while, so identical concurrent calls on several server
 * instances make one upstream fetch and one charge (issue 22; within one process `Fetch` shares fetches in memory).
 * A lease is short and renewed while its call runs, and released once the call's settle has stored the result; one
 * whose process died is no longer renewed, runs out, and another process may take it then.
 */
import { Context, type Effect, type Option } from "effect"

/** Port: leases on fetches, by freshness key and rows asked. */
export class FetchLeases extends Context.Tag("@pdr/domain/FetchLeases")<
  FetchLeases,
  {
    /** Takes the fetch of `key` for `ms`: its token, or none while another process holds it. */
    readonly take: (key: string, ms: number) => Effect.Effect<Option.Option<string>>
    /** Keeps the lease another `ms`; false when it is no longer this token's (it ran out and was taken). */
    readonly renew: (key: string, token: string, ms: number) => Effect.Effect<boolean>
    /** Gives the fetch back (its result is stored, or it failed): a process waiting for it may take it. */
    readonly release: (key: string, token: string) => Effect.Effect<void>
  }
>() {}
