import { AppError } from './errors';

/**
 * Who is calling a platform route: the platform's back end (the platform key opens every
 * connection) or an agent holding a scoped key, which opens only the connections it lists
 * and, when it names agents, only those agents' subscriptions and events.
 */
export type Caller =
  | { kind: 'platform' }
  | {
      kind: 'scoped';
      keyId: string;
      connections: readonly string[];
      /** The agents the key acts for; absent: every agent of its connections. */
      agents?: readonly string[];
    };

export const platformCaller: Caller = { kind: 'platform' };

/** True when the caller may act on the connection. */
export function callerMayUse(caller: Caller, connectionId: string): boolean {
  return caller.kind === 'platform' || caller.connections.includes(connectionId);
}

/** True when the caller acts for the agent (a key that names no agents acts for all of them). */
export function callerActsFor(caller: Caller, agentId: string): boolean {
  return caller.kind === 'platform' || caller.agents === undefined || caller.agents.includes(agentId);
}

/** True when the caller may see a record of this connection and agent (a subscription, an event). */
export function callerMaySee(caller: Caller, record: { connectionId: string; agentId: string }): boolean {
  return callerMayUse(caller, record.connectionId) && callerActsFor(caller, record.agentId);
}

/** Refuses (403 `forbidden`) a scoped key outside its connections; nothing is read or changed first. */
export function assertCallerMayUse(caller: Caller, connectionId: string): void {
  if (!callerMayUse(caller, connectionId)) {
    throw new AppError('forbidden', `This key does not open connection ${connectionId}`, { connectionId });
  }
}

/** Refuses (403 `forbidden`) a scoped key bound to other agents; nothing is read or changed first. */
export function assertCallerActsFor(caller: Caller, agentId: string): void {
  if (!callerActsFor(caller, agentId)) {
    throw new AppError('forbidden', `This key does not act for agent ${agentId}`, { agentId });
  }
}

/** The fields a log line carries about the caller: the key's id, never the key. */
export function callerLogFields(caller: Caller): { keyId?: string } {
  return caller.kind === 'scoped' ? { keyId: caller.keyId } : {};
}
