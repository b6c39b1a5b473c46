import * as z from 'zod';
import { InvalidInputError, type FieldProblem } from '../domain/errors';
import type { SubscriptionFilters, SubscriptionTarget } from '../domain/model';
import { resolveTriggerId, unknownTriggerMessage } from '../domain/trigger-id';
import type { TriggerId } from '../domain/triggers';
import { parseOrThrow } from '../domain/validation';
import { acceptedFilters, sourceFor, targetsAccepted } from './trigger-rules';
import type { TriggerCatalog } from '../domain/trigger-catalog';

/** `owner/name` as the code host spells repositories. */
export const repositoryName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'must be "owner/name" (e.g. "octo-org/hello-world")')
  .refine((s) => !s.split('/').some((p) => p === '.' || p === '..'), 'must be "owner/name"');

const organizationName = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'must be an organization login');

/**
 * Bounds of everything that becomes part of the subscription item (one DynamoDB item, at
 * most 400 KB) or a key: refused with `invalid_input` naming the field, before anything is
 * asked of the code host.
 */
export const subscriptionBounds = {
  /** Our ids are `conn_` + 32 hex; anything much longer cannot exist and must not reach a key. */
  idLength: 128,
  agentIdLength: 256,
  /** git refuses ref names over 255 bytes on most file systems. */
  branchLength: 255,
  /** The code host's label names are at most 50 characters; room for emoji. */
  labelLength: 100,
  /** Branches or labels in one filter. */
  filterValues: 100,
  /** A project or column id or name. */
  nameLength: 256,
} as const;

/** One value or a list of them (`label: "bug"` or `labels: ["bug", "p1"]`), each and the count bounded. */
const oneOrMany = (maxLength: number) =>
  z.union([
    z
      .string()
      .min(1)
      .max(maxLength)
      .transform((v) => [v]),
    z.array(z.string().min(1).max(maxLength)).min(1).max(subscriptionBounds.filterValues),
  ]);
const idOrName = z.union([z.string().min(1).max(subscriptionBounds.nameLength), z.number().int()]).transform(String);

const filtersSchema = z
  .object({
    branches: oneOrMany(subscriptionBounds.branchLength).optional(),
    /** Singular alias users reach for first. */
    branch: oneOrMany(subscriptionBounds.branchLength).optional(),
    labels: oneOrMany(subscriptionBounds.labelLength).optional(),
    label: oneOrMany(subscriptionBounds.labelLength).optional(),
    column: idOrName.optional(),
    project: idOrName.optional(),
    // Collection service (request and field triggers): a request template's or folder's name, a client's id or e-mail.
    template: z.string().trim().min(1).max(subscriptionBounds.nameLength).optional(),
    folder: z.string().trim().min(1).max(subscriptionBounds.nameLength).optional(),
    client: z.string().trim().min(1).max(subscriptionBounds.nameLength).optional(),
  })
  .strict();

export const subscriptionBody = z
  .object({
    connectionId: z.string().min(1, 'is required').max(subscriptionBounds.idLength),
    trigger: z
      .string()
      .max(subscriptionBounds.idLength)
      .superRefine((v, c) => {
        if (!resolveTriggerId(v)) c.addIssue({ code: 'custom', message: unknownTriggerMessage(v) });
      })
      .transform((v) => resolveTriggerId(v) as TriggerId),
    agentId: z.string().min(1, 'is required').max(subscriptionBounds.agentIdLength),
    repository: repositoryName.optional(),
    organization: organizationName.optional(),
    filters: filtersSchema.optional(),
    allowDuplicate: z.boolean().optional(),
  })
  .strict();

export interface SubscriptionRequest {
  connectionId: string;
  trigger: TriggerId;
  agentId: string;
  target: SubscriptionTarget;
  filters: SubscriptionFilters;
  /** A second subscription identical to an existing one is wanted (each event then reaches the agent once per subscription). */
  allowDuplicate: boolean;
}

function normalizeFilters(raw: z.output<typeof filtersSchema> | undefined): {
  filters: SubscriptionFilters;
  given: Map<keyof SubscriptionFilters, string>;
} {
  const filters: SubscriptionFilters = {};
  const given = new Map<keyof SubscriptionFilters, string>();
  if (!raw) return { filters, given };
  const branches = [...(raw.branches ?? []), ...(raw.branch ?? [])];
  if (branches.length > 0) {
    filters.branches = [...new Set(branches.map((b) => b.replace(/^refs\/heads\//, '')))];
    given.set('branches', raw.branches ? 'filters.branches' : 'filters.branch');
  }
  const labels = [...(raw.labels ?? []), ...(raw.label ?? [])];
  if (labels.length > 0) {
    filters.labels = [...new Set(labels)];
    given.set('labels', raw.labels ? 'filters.labels' : 'filters.label');
  }
  if (raw.column !== undefined) {
    filters.column = raw.column;
    given.set('column', 'filters.column');
  }
  if (raw.project !== undefined) {
    filters.project = raw.project;
    given.set('project', 'filters.project');
  }
  for (const name of ['template', 'folder', 'client'] as const) {
    const value = raw[name];
    if (value === undefined) continue;
    filters[name] = value;
    given.set(name, `filters.${name}`);
  }
  return { filters, given };
}

/**
 * Validates a `POST /subscriptions` body: shape first (zod, naming each field), then what
 * depends on the trigger: the target it takes and the filters it accepts.
 */
export function parseSubscriptionRequest(catalog: TriggerCatalog, body: unknown): SubscriptionRequest {
  const input = parseOrThrow(subscriptionBody, body);
  const trigger = input.trigger;
  const problems: FieldProblem[] = [];
  if (input.repository !== undefined && input.organization !== undefined) {
    problems.push({ field: 'organization', message: 'give either repository or organization, not both' });
  }
  const target: SubscriptionTarget =
    input.repository !== undefined
      ? { kind: 'repository', repository: input.repository }
      : input.organization !== undefined
        ? { kind: 'organization', organization: input.organization }
        : { kind: 'account' };
  if (problems.length === 0 && !sourceFor(catalog, trigger, target)) {
    const accepted = targetsAccepted(catalog, trigger);
    const field = target.kind === 'account' ? (accepted.includes('repository') ? 'repository' : 'organization') : target.kind;
    const message =
      target.kind === 'account'
        ? `is required for ${trigger} (it takes: ${accepted.join(' or ')})`
        : `${trigger} cannot be subscribed on a ${target.kind} (it takes: ${accepted.join(' or ')})`;
    problems.push({ field, message });
  }
  const { filters, given } = normalizeFilters(input.filters);
  const accepted = acceptedFilters(catalog, trigger);
  for (const [name, field] of given) {
    if (!accepted.includes(name)) {
      problems.push({
        field,
        message: `is not accepted by ${trigger}${accepted.length > 0 ? ` (it accepts: ${accepted.join(', ')})` : ' (it takes no filters)'}`,
      });
    }
  }
  if (problems.length > 0) throw new InvalidInputError(problems);
  return {
    connectionId: input.connectionId,
    trigger,
    agentId: input.agentId,
    target,
    filters,
    allowDuplicate: input.allowDuplicate === true,
  };
}
