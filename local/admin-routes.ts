import * as z from 'zod';
import { formatDeadLetters, summarizeDeadLetters } from './admin/dead-letters';
import { sendExampleTrigger } from './admin/send-example';
import { ownIntakeSender } from './admin/own-intake';
import { runtimeDoctorReport } from './admin/doctor-report';
import type { AppContext } from '../shared/ports/app-context';
import type { LocalQueues } from '../shared/adapters/local/local-queues';
import { resolveTriggerId, unknownTriggerMessage } from '../shared/domain/trigger-id';
import type { TriggerId } from '../shared/domain/triggers';
import { json } from '../shared/http/responses';
import { localOnlySpec } from '../shared/http/openapi';
import { bindRoutes, type RouteTable } from '../shared/http/route-table';
import type { Route } from '../shared/http/types';

// Ids are bounded like every id that reaches a key or a lookup (subscription-input.ts).
const redriveSchema = z.object({ ids: z.array(z.string().min(1).max(128)).min(1).max(1000).optional() }).strict();
const triggerSchema = z
  .object({
    trigger: z
      .string()
      .max(128)
      .superRefine((v, c) => {
        if (!resolveTriggerId(v)) c.addIssue({ code: 'custom', message: unknownTriggerMessage(v) });
      })
      .transform((v) => resolveTriggerId(v) as TriggerId),
    subscriptionId: z.string().min(1).max(128).optional(),
    overrides: z
      .array(z.object({ path: z.string().min(1).max(300), value: z.unknown() }).strict())
      .max(50)
      .optional(),
  })
  .strict();

/**
 * Operator routes of the local runtime (platform key required): the dead-letter queue, read
 * and redriven by the process that owns the queue files (`npm run dlq`), and example
 * deliveries through the runtime's own intake (`npm run trigger`). Not part of the AWS
 * surface: there `npm run dlq -- --aws` talks to SQS directly.
 */
export const adminRouteTable = {
  deadLetters: { method: 'GET', pattern: '/admin/dlq', spec: localOnlySpec('The dead-letter queue (npm run dlq)'), auth: 'platform' },
  redrive: {
    method: 'POST',
    pattern: '/admin/dlq/redrive',
    spec: localOnlySpec('Redrive dead letters (npm run dlq)', redriveSchema),
    auth: 'platform',
  },
  doctor: { method: 'GET', pattern: '/admin/doctor', spec: localOnlySpec("The runtime's own checks (npm run doctor)"), auth: 'platform' },
  sendExample: {
    method: 'POST',
    pattern: '/admin/trigger',
    spec: localOnlySpec('Send an example delivery through the intake (npm run trigger)', triggerSchema),
    auth: 'platform',
  },
} satisfies RouteTable;

/** The operator routes (`adminRouteTable`), each with its handler. */
export function adminRoutes(ctx: AppContext, queues: LocalQueues): Route[] {
  return bindRoutes(adminRouteTable, {
    deadLetters: async (req) => {
      const max = Math.min(Math.max(Number(req.query.get('max') ?? 100) || 100, 1), 1000);
      const deadLetters = await summarizeDeadLetters(await queues.deadLetters.list(max), ctx.blobs);
      return json(200, { depth: queues.dlq.size(), deadLetters, text: formatDeadLetters(deadLetters) });
    },
    redrive: async (req) => {
      const { ids } = req.input;
      const redriven = await queues.deadLetters.redrive(ids);
      ctx.logger.info('dead letters redriven', { redriven, ids });
      return json(200, { redriven });
    },
    doctor: async () => json(200, await runtimeDoctorReport(ctx, fetch)),
    sendExample: async (req) => {
      const input = req.input;
      const result = await sendExampleTrigger(
        ownIntakeSender(ctx),
        input.trigger as TriggerId,
        input.subscriptionId,
        input.overrides ?? [],
      );
      ctx.logger.info('example trigger sent', { trigger: input.trigger, subscriptionId: result.subscriptionId, kind: result.kind });
      return json(200, result);
    },
  });
}
