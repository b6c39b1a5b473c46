import type { Clock } from '../ports';
import { AgentPace, defaultPaceOptions, type PaceOptions } from './agent-pace';
import { type CircuitOptions, type CircuitSnapshot, DispatchCircuit, defaultCircuitOptions } from './circuit';

/** A verdict on one agent's pace, shared between containers: slow or not, until when (ms). */
export interface PaceVerdict {
  slow: boolean;
  until: number;
}

/** Circuits kept at most: past it the one used longest ago is forgotten (a closed circuit carries little). */
const maxCircuits = 1_000;

const severity: Record<CircuitSnapshot['state'], number> = { closed: 0, half_open: 1, open: 2 };

/** Puts `value` as `key`'s, most recently used; past `maxCircuits` the one used longest ago is forgotten. */
function putRecent<T>(map: Map<string, T>, key: string, value: T): T {
  // Most recently used last: the first entry is the one to forget.
  if (!map.delete(key) && map.size >= maxCircuits) map.delete(map.keys().next().value as string);
  map.set(key, value);
  return value;
}

/** The entry of `key`, made on first use, as most recently used. */
function recent<T>(map: Map<string, T>, key: string, make: () => T): T {
  return putRecent(map, key, map.get(key) ?? make());
}

/**
 * One circuit per agent runtime and agent (`circuitKey`), so that one runtime's failures or
 * `Retry-After` pause its own events and nobody else's, and one pace (how slow its answers
 * are: agent-pace.ts) by the same key. Per process (local runtime) or per container (Lambda),
 * as the circuit itself.
 */
export class CircuitBoard {
  private readonly circuits = new Map<string, DispatchCircuit>();
  private readonly paces = new Map<string, AgentPace>();
  private readonly probes = new Map<string, number>();
  private readonly verdicts = new Map<string, { verdict: PaceVerdict; readAgainAt: number }>();
  private openings = 0;

  constructor(
    private readonly clock: Clock,
    private readonly options: CircuitOptions = defaultCircuitOptions,
    /** Told each time one of the circuits opens, with its key (a metric, a log line). */
    private readonly onOpen: (snapshot: CircuitSnapshot, key: string) => void = () => {},
    private readonly paceOptions: PaceOptions = defaultPaceOptions,
  ) {}

  /** The circuit of `key`, made closed on first use. */
  for(key: string): DispatchCircuit {
    return recent(
      this.circuits,
      key,
      () =>
        new DispatchCircuit(this.clock, this.options, (s) => {
          this.openings++;
          this.onOpen(s, key);
        }),
    );
  }

  /** The pace of `key`'s answers, with none noted on first use. */
  pace(key: string): AgentPace {
    return recent(this.paces, key, () => new AgentPace(this.clock, this.paceOptions));
  }

  /**
   * The verdict on `key`'s pace this container last read from the others or told them
   * (shared-pace.ts), while it lasts; with `toRead`, only until it is to be read again.
   */
  verdict(key: string, toRead = true): PaceVerdict | undefined {
    const held = this.verdicts.get(key);
    const now = this.clock.now();
    return held && (!toRead || held.readAgainAt > now) && held.verdict.until > now ? held.verdict : undefined;
  }

  /** Whether another container was found probing `key` lately (until the time `noteProbedElsewhere` gave). */
  probedElsewhere(key: string): boolean {
    return (this.probes.get(key) ?? 0) > this.clock.now();
  }

  noteProbedElsewhere(key: string, until: number): void {
    putRecent(this.probes, key, until);
  }

  /** Keeps `verdict` of `key` until `readAgainAt` (ms), or its own end if sooner. */
  remember(key: string, verdict: PaceVerdict, readAgainAt: number): void {
    putRecent(this.verdicts, key, { verdict, readAgainAt });
  }

  /**
   * The state of the most open circuit (what an operator looks for first), with the openings
   * of all of them; closed with no samples when there is none yet.
   */
  snapshot(): CircuitSnapshot {
    let worst: CircuitSnapshot | undefined;
    for (const c of this.circuits.values()) {
      const s = c.snapshot();
      if (!worst || severity[s.state] > severity[worst.state]) worst = s;
    }
    return { ...(worst ?? { state: 'closed', failures: 0, samples: 0 }), opened: this.openings };
  }
}

/** The key of the circuit a POST goes through: the agent runtime's origin and the agent the event is for. */
export function circuitKey(url: string, agentId: string): string {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = url;
  }
  return `${origin} ${agentId}`;
}
