import * as z from 'zod';
import type { MappedEvent } from '../../../domain/mapping/types';
import { baseEvent, baseFacts, compact, labelNames, occurrence, parse, partOfOpening, type Mapper, type MapperTable } from './mapper';
import { envelopeSchema, issueSchema, labelSchema, userSchema } from './schemas';

/**
 * Issues family: new issue, updated issue, new label on issue.
 * `issues` deliveries whose issue carries `pull_request` concern a pull request (the code
 * host sends e.g. `milestoned` that way): they never fire the issue triggers.
 */

const issuesPayload = envelopeSchema.extend({
  issue: issueSchema,
  label: labelSchema.nullish(),
  assignee: userSchema.nullish(),
  changes: z
    .object({ title: z.object({ from: z.string().nullish() }).nullish(), body: z.object({ from: z.string().nullish() }).nullish() })
    .nullish(),
});
type IssuesPayload = z.output<typeof issuesPayload>;

function issueOnly(payload: unknown): IssuesPayload | undefined {
  const p = parse(issuesPayload, payload);
  return p && !p.issue.pull_request ? p : undefined;
}

function issueEvent(p: IssuesPayload): Record<string, unknown> {
  return compact({ ...baseEvent(p), issue: p.issue, label: p.label, assignee: p.assignee, changes: p.changes });
}

function issueFacts(p: IssuesPayload) {
  return { ...baseFacts(p), labels: labelNames(p.issue.labels) ?? [] };
}

const newIssue: Mapper = (payload) => {
  const p = issueOnly(payload);
  return p ? [occurrence('new_issue', issueEvent(p), issueFacts(p))] : [];
};

/** The spec: "title, body, labels, assignees or status" changes; nothing else (lock, pin, milestone...). */
const updatedIssue: Mapper = (payload) => {
  const p = issueOnly(payload);
  return p ? [occurrence('updated_issue', issueEvent(p), issueFacts(p))] : [];
};

/** Labels and assignees given when the issue was opened are part of new_issue, not an update (`partOfOpening`). */
const updatedAfterOpening: Mapper = (payload) => {
  const p = issueOnly(payload);
  return p && !partOfOpening(p.issue) ? [occurrence('updated_issue', issueEvent(p), issueFacts(p))] : [];
};

/** The label just applied is the fact a labels filter matches (not the issue's older labels). */
const newLabel: Mapper = (payload): MappedEvent[] => {
  const p = issueOnly(payload);
  if (!p?.label) return [];
  return [occurrence('new_label_on_issue', issueEvent(p), { ...baseFacts(p), labels: [p.label.name] })];
};

export const issueMappers: MapperTable = {
  'issues.opened': [newIssue],
  'issues.edited': [updatedIssue],
  'issues.closed': [updatedIssue],
  'issues.reopened': [updatedIssue],
  'issues.labeled': [updatedAfterOpening, newLabel],
  'issues.unlabeled': [updatedIssue],
  'issues.assigned': [updatedAfterOpening],
  'issues.unassigned': [updatedIssue],
};
