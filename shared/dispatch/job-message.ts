import type * as z from 'zod';
import type { InboundMessage } from '../ports';
import type { AppContext } from '../ports/app-context';
import type { JobKind } from './provider-work';
import type { Settlement } from './settlement';

/** The job kind a queue message is (well formed or not), rather than a trigger event; undefined for an event. */
export function jobKindOf(body: string, kinds: readonly JobKind[]): JobKind | undefined {
  // Cheap before JSON: most trigger events name no job kind.
  const named = kinds.filter((k) => body.includes(k.kind));
  if (named.length === 0) return undefined;
  let kind: unknown;
  try {
    kind = (JSON.parse(body) as { kind?: unknown }).kind;
  } catch {
    return undefined;
  }
  return named.find((k) => k.kind === kind);
}

/**
 * A job message's body read with its schema, or the settlement of one that can never be
 * read: failed at once (no delay), so the queue dead-letters it intact after its last receive.
 */
export function readJob<S extends z.ZodType>(
  ctx: Pick<AppContext, 'logger' | 'metrics'>,
  m: InboundMessage,
  schema: S,
  label: string,
): { ok: true; job: z.output<S> } | { ok: false; settled: Settlement } {
  let body: unknown;
  try {
    body = JSON.parse(m.body);
  } catch {
    body = undefined;
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, job: parsed.data };
  const problem = parsed.error.issues.map((i) => i.path.join('.') || '(body)').join(', ');
  ctx.metrics.count('dispatch_poison');
  ctx.logger.error(`unreadable ${label}; it goes to the dead-letter queue as it is`, { messageId: m.messageId, problem });
  return { ok: false, settled: { kind: 'failed', reason: `unreadable ${label}: ${problem}`, delaySeconds: 0 } };
}
