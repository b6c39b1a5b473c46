import { AppError } from '../../../domain/errors';
import { mapDelivery } from '../mapping/map-delivery';
import type { Connection, Subscription } from '../../../domain/model';
import { matchesSubscription } from '../../../domain/subscription-match';
import { githubTriggers } from './catalog';
import type { CatalogRows } from '../../../domain/trigger-catalog';

type Json = Record<string, unknown>;

/** A documented example delivery (shared/subscriptions/examples/<trigger>.json). */
export interface ExampleDelivery {
  event: string;
  payload: Json;
}

const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);

/** A concrete branch for a filter pattern: `release/*` -> `release/example`. */
export function branchFor(pattern: string): string {
  return pattern.replace(/\*\*/g, 'example').replace(/\*/g, 'example');
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every string and `login` of a payload, rewritten in place (the documented examples nest a few levels). */
function rewrite(v: unknown, text: (s: string) => string, login: (s: string) => string): unknown {
  if (typeof v === 'string') return text(v);
  if (Array.isArray(v)) return v.map((x) => rewrite(x, text, login));
  const o = obj(v);
  if (!o) return v;
  for (const [k, x] of Object.entries(o)) o[k] = k === 'login' && typeof x === 'string' ? login(x) : rewrite(x, text, login);
  return o;
}

/**
 * The example names the subscription's repository everywhere: its URLs (web and API) and
 * names. On a user's repository the documented owner's account (the sender, an issue's author)
 * becomes the new owner, so that repository, sender and links agree; an organization's
 * repository keeps the people as they are (an organization sends nothing).
 */
function setRepository(p: Json, fullName: string, ownerIsOrg: boolean): void {
  const [owner = 'octocat', name = 'example'] = fullName.split('/');
  const repo = obj(p.repository);
  const before = typeof repo?.full_name === 'string' ? repo.full_name : undefined;
  const beforeOwner = before?.split('/')[0];
  if (before && beforeOwner && before.toLowerCase() !== `${owner}/${name}`.toLowerCase()) {
    const repoPath = new RegExp(escaped(before), 'gi');
    // A path segment that is the documented owner: `github.com/Codertocat`, `/users/Codertocat/repos`.
    const ownerSegment = new RegExp(`(?<=/)${escaped(beforeOwner)}(?=[/?#{]|$)`, 'gi');
    const sameOwner = (s: string) => s.toLowerCase() === beforeOwner.toLowerCase();
    rewrite(
      p,
      (s) => {
        const moved = s.replace(repoPath, `${owner}/${name}`);
        return ownerIsOrg ? moved : moved.replace(ownerSegment, owner);
      },
      (login) => (!ownerIsOrg && sameOwner(login) ? owner : login),
    );
  }
  if (repo) {
    const repoOwner = obj(repo.owner) ?? {};
    repo.owner = { ...repoOwner, login: owner, html_url: `https://github.com/${owner}`, ...(ownerIsOrg ? { type: 'Organization' } : {}) };
    Object.assign(repo, { name, full_name: `${owner}/${name}`, html_url: `https://github.com/${owner}/${name}` });
  }
  if (ownerIsOrg) p.organization = { ...(obj(p.organization) ?? {}), login: owner };
  else delete p.organization;
}

/** Where each event carries the facts subscription filters read. */
function setBranch(event: string, p: Json, branch: string): void {
  if (event === 'push') p.ref = `refs/heads/${branch}`;
  else if (event === 'create') p.ref = branch;
  else if (event === 'workflow_run') Object.assign(obj(p.workflow_run) ?? {}, { head_branch: branch });
  else if (event === 'workflow_job') Object.assign(obj(p.workflow_job) ?? {}, { head_branch: branch });
  else Object.assign(obj(obj(p.pull_request)?.base) ?? {}, { ref: branch });
}

function setLabel(event: string, p: Json, label: string): void {
  const entry = { id: 1, name: label, color: 'ededed' };
  if (event === 'issues' && obj(p.label)) p.label = { ...obj(p.label), name: label };
  for (const holder of [obj(p.issue), obj(p.pull_request), obj(p.discussion)]) if (holder) holder.labels = [entry];
}

function setColumn(p: Json, column: string): void {
  if (!/^\d+$/.test(column.trim())) {
    throw new AppError(
      'invalid_input',
      `The subscription's column filter "${column}" is a name; the code host's card events name columns by id only, so no example can match it. Use the column id.`,
    );
  }
  Object.assign(obj(p.project_card) ?? {}, { column_id: Number(column.trim()) });
}

function setProject(p: Json, project: string): void {
  const wanted = project.trim();
  if (/^#?\d+$/.test(wanted)) {
    const changes = obj(p.changes);
    const fieldValue = obj(changes?.field_value);
    if (fieldValue) fieldValue.project_number = Number(wanted.replace(/^#/, ''));
  } else {
    Object.assign(obj(p.projects_v2_item) ?? {}, { project_node_id: wanted });
  }
}

/**
 * The example delivery adjusted so that it reaches this subscription: it names the
 * subscription's repository (or one in its organization, allow-listed on the connection),
 * passes its filters, and, for mentions, mentions the connected account. The result is
 * checked with the same mapping and matching the intake runs; throws `invalid_input`
 * explaining why when it cannot be made to match.
 */
export function fitExample(example: ExampleDelivery, sub: Subscription, connection: Connection): ExampleDelivery {
  const raw = JSON.stringify(example.payload).replaceAll('{accountLogin}', connection.accountLogin);
  const p = JSON.parse(raw) as Json;
  const { event } = example;

  if (sub.repository) setRepository(p, sub.repository, false);
  else if (sub.organization) {
    const organization = sub.organization.toLowerCase();
    const allowed = connection.repositories.find((r) => r.toLowerCase().startsWith(`${organization}/`));
    const name = obj(p.repository)?.name;
    setRepository(p, allowed ?? `${sub.organization}/${typeof name === 'string' ? name : 'example'}`, true);
  } else if (connection.repositories[0]) setRepository(p, connection.repositories[0], false);

  // Only the filters this trigger reads (the matcher ignores the others too).
  const rows: CatalogRows = githubTriggers;
  const accepted = new Set(rows[sub.trigger]?.filters);
  const given = sub.filters ?? {};
  const f = Object.fromEntries(Object.entries(given).filter(([k]) => accepted.has(k as keyof typeof given))) as typeof given;
  if (f.branches?.[0]) setBranch(event, p, branchFor(f.branches[0]));
  if (f.labels?.[0]) setLabel(event, p, f.labels[0]);
  if (f.column) setColumn(p, f.column);
  if (f.project) setProject(p, f.project);
  // The code host does not notify self-mentions: a mention's sender must be someone else, whole
  // (login and links), so the example still agrees with itself.
  const sender = obj(p.sender);
  if (
    sub.trigger === 'github.new_mention' &&
    sender &&
    typeof sender.login === 'string' &&
    sender.login.toLowerCase() === connection.accountLogin.toLowerCase()
  ) {
    const login = 'example-sender';
    const before = sender.login;
    rewrite(
      sender,
      (text) => text.replace(new RegExp(`(?<=/)${escaped(before)}(?=[/?#{]|$)`, 'gi'), login),
      () => login,
    );
  }

  const mapped = mapDelivery({ event, payload: p, accountLogin: connection.accountLogin }).filter((m) => m.trigger === sub.trigger);
  if (!mapped.some((m) => matchesSubscription(sub, m, githubTriggers))) {
    throw new AppError(
      'invalid_input',
      `The example for ${sub.trigger} could not be adjusted to pass subscription ${sub.id}'s target and filters`,
    );
  }
  return { event, payload: p };
}
