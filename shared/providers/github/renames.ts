import * as z from 'zod';
import type { Connection, Endpoint, Subscription } from '../../domain/model';

/**
 * Renames and transfers, from what a signed delivery says. The code host's ids are stable;
 * names are not: a repository renamed or transferred, an account renamed, and every later
 * payload names the new `owner/name`. Pure: the stored rows after seeing a delivery.
 */

/** A repository a delivery names; `formerName` when the delivery says it was renamed from it. */
export interface SeenRepository {
  id: number;
  fullName: string;
  formerName?: string;
}

/** An account (user or organization) a delivery names; `formerLogin` when it says it was renamed. */
export interface SeenAccount {
  id: number;
  login: string;
  formerLogin?: string;
  /** An organization (so organization subscriptions may match it). */
  organization: boolean;
}

export interface Seen {
  repository?: SeenRepository;
  accounts: SeenAccount[];
}

const id = z.number().int().positive();
const login = z.string().min(1).max(100);
const account = z.object({ id, login, type: z.string().max(50).optional() });
const envelope = z.object({
  repository: z
    .object({ id, full_name: z.string().min(3).max(201), name: z.string().max(100), owner: account })
    .optional()
    .catch(undefined),
  organization: z.object({ id, login }).optional().catch(undefined),
  sender: account.optional().catch(undefined),
});
const repositoryRenamed = z.object({
  action: z.literal('renamed'),
  changes: z.object({ repository: z.object({ name: z.object({ from: login }) }) }),
});
const repositoryTransferred = z.object({
  action: z.literal('transferred'),
  changes: z.object({
    owner: z.object({ from: z.object({ user: z.object({ login }).optional(), organization: z.object({ login }).optional() }) }),
  }),
});
const targetRenamed = z.object({
  action: z.literal('renamed'),
  target_type: z.string().max(50),
  account,
  changes: z.object({ login: z.object({ from: login }) }),
});

/** The ids and names a delivery carries (repository, its owner, organization, sender), with what a rename event says it was. */
export function seenIn(event: string, payload: unknown): Seen {
  const env = envelope.safeParse(payload);
  const seen: Seen = { accounts: [] };
  if (!env.success) return seen;
  const { repository: r, organization: o, sender: s } = env.data;
  if (r) {
    seen.repository = { id: r.id, fullName: r.full_name };
    seen.accounts.push({ id: r.owner.id, login: r.owner.login, organization: r.owner.type === 'Organization' });
    const former = event === 'repository' ? formerName(payload, r.owner.login, r.name) : undefined;
    if (former !== undefined && former.toLowerCase() !== r.full_name.toLowerCase()) seen.repository.formerName = former;
  }
  if (o) seen.accounts.push({ id: o.id, login: o.login, organization: true });
  if (s) seen.accounts.push({ id: s.id, login: s.login, organization: s.type === 'Organization' });
  if (event === 'installation_target') {
    const t = targetRenamed.safeParse(payload);
    if (t.success && t.data.account.login !== t.data.changes.login.from)
      seen.accounts.unshift({
        id: t.data.account.id,
        login: t.data.account.login,
        formerLogin: t.data.changes.login.from,
        organization: t.data.target_type === 'Organization',
      });
  }
  return seen;
}

/** `repository` `renamed` / `transferred`: the `owner/name` the repository had. */
function formerName(payload: unknown, owner: string, name: string): string | undefined {
  const renamed = repositoryRenamed.safeParse(payload);
  if (renamed.success) return `${owner}/${renamed.data.changes.repository.name.from}`;
  const moved = repositoryTransferred.safeParse(payload);
  const from = moved.success ? (moved.data.changes.owner.from.user ?? moved.data.changes.owner.from.organization) : undefined;
  return from ? `${from.login}/${name}` : undefined;
}

const lower = (s: string) => s.toLowerCase();

/** `owner/name` with its owner renamed from `from` to `to`, or undefined when another owner's. */
function withOwner(fullName: string, from: string, to: string): string | undefined {
  const slash = fullName.indexOf('/');
  return slash > 0 && lower(fullName.slice(0, slash)) === lower(from) ? `${to}${fullName.slice(slash)}` : undefined;
}

/**
 * The account renames this connection can tell: those the delivery states (`formerLogin`),
 * and those its ids reveal: an account whose id the connection keeps (its own user, its
 * installation's account) named by another login than the one kept.
 */
function accountRenames(c: Connection, seen: Seen): SeenAccount[] {
  const out: SeenAccount[] = [];
  for (const a of seen.accounts) {
    if (a.formerLogin !== undefined) out.push(a);
    else if (c.installation && c.installation.account.id === String(a.id) && c.installation.account.login !== a.login)
      out.push({ ...a, formerLogin: c.installation.account.login });
    else if (c.provider === 'github' && c.accountId === String(a.id) && c.accountLogin !== a.login)
      out.push({ ...a, formerLogin: c.accountLogin });
  }
  return out;
}

/** The same `seen`, with the account renames `c`'s ids reveal stated (so subscriptions can follow them too). */
export function seenBy(c: Connection, seen: Seen): Seen {
  const renames = accountRenames(c, seen);
  return renames.length === 0 ? seen : { ...seen, accounts: [...renames, ...seen.accounts.filter((a) => a.formerLogin === undefined)] };
}

/** The connection after the delivery (its login, its installation's account, its allow-list), or undefined when unchanged. */
export function connectionAfter(c: Connection, seen: Seen): Connection | undefined {
  let next = c;
  for (const a of accountRenames(c, seen)) {
    const former = a.formerLogin as string;
    if (next.installation && next.installation.account.id === String(a.id) && next.installation.account.login !== a.login)
      next = { ...next, installation: { ...next.installation, account: { ...next.installation.account, login: a.login } } };
    if (next.provider === 'github' && next.accountId === String(a.id) && next.accountLogin !== a.login)
      next = { ...next, accountLogin: a.login };
    const list = allowList(next, (name) =>
      withOwner(name, former, a.login) ? { name: withOwner(name, former, a.login) as string } : undefined,
    );
    if (list) next = { ...next, ...list };
  }
  const r = seen.repository;
  if (r) {
    const list = allowList(next, (name, knownId) => {
      const same =
        knownId !== undefined ? knownId === r.id : lower(name) === lower(r.fullName) || lower(name) === lower(r.formerName ?? '');
      return same ? { name: r.fullName, id: r.id } : undefined;
    });
    if (list) next = { ...next, ...list };
  }
  return next === c ? undefined : next;
}

type AllowList = Pick<Connection, 'repositories' | 'repositoryIds'>;

/** The allow-list with each entry `change` renames (and gives an id); undefined when nothing changed. */
function allowList(
  c: AllowList,
  change: (name: string, id: number | undefined) => { name: string; id?: number } | undefined,
): AllowList | undefined {
  const ids: Record<string, number> = { ...(c.repositoryIds ?? {}) };
  const out = new Map<string, string>();
  let changed = false;
  for (const name of c.repositories) {
    const known = ids[lower(name)];
    const to = change(name, known);
    if (to && (to.name !== name || (to.id !== undefined && known !== to.id))) {
      changed = true;
      delete ids[lower(name)];
      const id = to.id ?? known;
      if (id !== undefined) ids[lower(to.name)] = id;
      out.set(lower(to.name), to.name);
    } else out.set(lower(name), name);
  }
  return changed ? { repositories: [...out.values()], repositoryIds: ids } : undefined;
}

/** The subscription after the delivery (its repository's or organization's name and id), or undefined when unchanged. */
export function subscriptionAfter(sub: Subscription, seen: Seen): Subscription | undefined {
  let next = sub;
  for (const a of seen.accounts) {
    if (a.formerLogin === undefined) continue;
    const moved = next.repository !== undefined ? withOwner(next.repository, a.formerLogin, a.login) : undefined;
    if (moved !== undefined && moved !== next.repository) next = { ...next, repository: moved };
    if (next.organization !== undefined && lower(next.organization) === lower(a.formerLogin) && next.organization !== a.login)
      next = { ...next, organization: a.login, ...(a.organization ? { organizationId: a.id } : {}) };
  }
  const r = seen.repository;
  if (r && next.repository !== undefined) {
    const same =
      next.repositoryId !== undefined
        ? next.repositoryId === r.id
        : lower(next.repository) === lower(r.fullName) || lower(next.repository) === lower(r.formerName ?? '');
    if (same && (next.repository !== r.fullName || next.repositoryId !== r.id))
      next = { ...next, repository: r.fullName, repositoryId: r.id };
  }
  for (const o of seen.accounts) {
    if (!o.organization || next.organization === undefined) continue;
    const same = next.organizationId !== undefined ? next.organizationId === o.id : lower(next.organization) === lower(o.login);
    if (same && (next.organization !== o.login || next.organizationId !== o.id))
      next = { ...next, organization: o.login, organizationId: o.id };
  }
  return next === sub ? undefined : next;
}

/** A hook's target after a rename the delivery states (the hook at the code host follows it; its API path does not). */
export function endpointAfter(e: Endpoint, seen: Seen): Endpoint | undefined {
  const t = e.target;
  let name = t.kind === 'repository' ? t.repository : t.organization;
  for (const a of seen.accounts) {
    if (a.formerLogin === undefined) continue;
    if (t.kind === 'repository') name = withOwner(name, a.formerLogin, a.login) ?? name;
    else if (lower(name) === lower(a.formerLogin)) name = a.login;
  }
  const r = seen.repository;
  if (t.kind === 'repository' && r?.formerName !== undefined && lower(name) === lower(r.formerName)) name = r.fullName;
  if (name === (t.kind === 'repository' ? t.repository : t.organization)) return undefined;
  return {
    ...e,
    target: t.kind === 'repository' ? { kind: 'repository', repository: name } : { kind: 'organization', organization: name },
  };
}
