/**
 * Circuits shared by the server instances of one service (issue 22): a host whose circuit one instance opened is
 * known to the others (within the store's polling interval), which then answer at once too instead of each finding
 * the host down on its own. Optional: without it in context each policy keeps its circuits to itself.
 */
import { Context, type Effect } from "effect"

/** Where the instances tell each other which hosts' circuits are open. */
export class Circuits extends Context.Tag("@pdr/upstream-http/Circuits")<
  Circuits,
  {
    /** This instance opened the circuit of `host` until `untilMs` (epoch ms). */
    readonly opened: (host: string, untilMs: number) => Effect.Effect<void>
    /** Until when (epoch ms) another instance holds the circuit of `host` open, as last heard; undefined when not. */
    readonly openUntil: (host: string) => number | undefined
    /**
     * Closes every shared open circuit (an operator's retry after the cause was fixed: the hosts are probed again);
     * the hosts that were open.
     */
    readonly closeAll: Effect.Effect<ReadonlyArray<string>, Error>
  }
>() {}
