import { AppError } from './errors';

/**
 * Who is calling a platform route: the platform's back end (the platform key opens every
 * connection) or an agent holding a scoped key, which opens only the connections it lists.
 */
export type Caller = { kind: 'platform' } | { kind: 'scoped'; keyId: string; connections: readonly string[] };

export const platformCaller: Caller = { kind: 'platform' };

/** True when the caller may act on the connection. */
export function callerMayUse(caller: Caller, connectionId: string): boolean {
  return caller.kind === 'platform' || caller.connections.includes(connectionId);
}

/** Refuses (403 `forbidden`) a scoped key outside its connections; nothing is read or changed first. */
export function assertCallerMayUse(caller: Caller, connectionId: string): void {
  if (!callerMayUse(caller, connectionId)) {
    throw new AppError('forbidden', `This key does not open connection ${connectionId}`, { connectionId });
  }
}

/** The fields a log line carries about the caller: the key's id, never the key. */
export function callerLogFields(caller: Caller): { keyId?: string } {
  return caller.kind === 'scoped' ? { keyId: caller.keyId } : {};
}
