import * as z from 'zod';
import type { SubscriptionTarget } from '../../shared/domain/model';
import { triggerCatalog } from '../../shared/wiring/providers';
import { mergeGrants, type Grant } from '../../shared/domain/trigger-permissions';
import { isTriggerId } from '../../shared/domain/triggers';
import { providerTools } from '../../shared/wiring/provider-tools';
import { permissionText } from '../admin/permission-table';

export type Verdict = 'ok' | 'warn' | 'FAIL' | 'info';

/** One call to the running runtime's API with the platform key: status and parsed body, or unreachable. */
export type RuntimeCall = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<{ status: number; body: unknown } | undefined>;

/** A connection as the runtime's report lists it, with its provider's kind of connection. */
const connectionShape = z.object({ id: z.string(), provider: z.string(), kind: z.string(), accountLogin: z.string() });
const subscriptionShape = z.object({
  id: z.string(),
  trigger: z.string(),
  repository: z.string().optional(),
  organization: z.string().optional(),
});
const toolAnswer = z.union([
  z.object({ ok: z.literal(true), data: z.object({ status: z.number(), headers: z.record(z.string(), z.string()).optional() }) }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
  }),
]);

type Subscription = z.infer<typeof subscriptionShape>;

/** Classic scopes that include others (GitHub's "Scopes for OAuth apps"). */
const includedScopes: Record<string, string[]> = {
  repo: [
    'public_repo',
    'repo:status',
    'repo_deployment',
    'repo:invite',
    'security_events',
    'admin:repo_hook',
    'write:repo_hook',
    'read:repo_hook',
  ],
  'admin:repo_hook': ['write:repo_hook', 'read:repo_hook'],
  'write:repo_hook': ['read:repo_hook'],
  'admin:org': ['write:org', 'read:org'],
  'write:org': ['read:org'],
  project: ['read:project'],
  user: ['read:user', 'user:email', 'user:follow'],
};

function hasScope(granted: readonly string[], needed: string): boolean {
  return granted.some((g) => g === needed || includedScopes[g]?.includes(needed));
}

function targetOf(sub: Subscription): SubscriptionTarget {
  if (sub.repository) return { kind: 'repository', repository: sub.repository };
  if (sub.organization) return { kind: 'organization', organization: sub.organization };
  return { kind: 'account' };
}

function describe(sub: Subscription): string {
  const on = sub.repository ?? (sub.organization ? `organization ${sub.organization}` : 'the account');
  return `subscription ${sub.id} (${sub.trigger} on ${on})`;
}

/** A read that shows a fine-grained permission is there, on the subscription's target; undefined: no cheap read shows it. */
function probeFor(permission: string, target: SubscriptionTarget): string | undefined {
  if (target.kind === 'repository') {
    const repo = `/repos/${target.repository}`;
    const reads: Record<string, string> = {
      metadata: repo,
      contents: `${repo}/commits?per_page=1`,
      repository_hooks: `${repo}/hooks?per_page=1`,
    };
    return reads[permission];
  }
  if (target.kind === 'organization' && permission === 'organization_hooks') return `/orgs/${target.organization}/hooks?per_page=1`;
  return undefined;
}

type Need = { sub: Subscription; grant: Grant };
type ApiCallAnswer = z.infer<typeof toolAnswer> | undefined;
type Line = (v: Verdict, text: string) => void;

/** A classic token says its scopes: every missing one is named, and the steps it cannot run are listed. */
function checkScopes(name: string, scopes: string[], needs: readonly Need[], line: Line): void {
  let short = false;
  for (const { sub, grant } of needs) {
    const missing = grant.oauthScopes.filter((s) => !hasScope(scopes, s));
    if (missing.length === 0) continue;
    short = true;
    line(
      'warn',
      `${name}: ${describe(sub)} needs the scope ${missing.join(', ')}, which the token lacks (it has: ${scopes.join(', ') || 'none'})`,
    );
  }
  if (!short) line('ok', `${name}: scopes ${scopes.join(', ') || 'none'}; ${needs.length} subscription(s), each with the scopes it needs`);
  const cannot = providerTools.github.steps.filter((step) => step.permissions.oauthScopes.some((s) => !hasScope(scopes, s)));
  if (cannot.length > 0) {
    const named = cannot.map((step) => `${step.id} (${step.permissions.oauthScopes.filter((s) => !hasScope(scopes, s)).join(', ')})`);
    line('info', `${name}: steps this token cannot run, by the scope missing: ${named.join('; ')}`);
  }
}

/**
 * A fine-grained (or App) token publishes no permissions: what can be read cheaply is read, a
 * refusal names the permission, and what only a write would show is said to be unknown.
 */
async function checkByReading(name: string, needs: readonly Need[], apiCall: (endpoint: string) => Promise<ApiCallAnswer>, line: Line) {
  line(
    'info',
    `${name}: no scopes reported (a fine-grained or App token): checking what its ${needs.length} subscription(s) need by reading`,
  );
  const seen = new Map<string, ApiCallAnswer>();
  for (const { sub, grant } of needs) {
    for (const [permission, level] of Object.entries(grant.fineGrained)) {
      const wanted = permissionText(permission, level);
      const endpoint = probeFor(permission, targetOf(sub));
      if (!endpoint) {
        line('info', `${name}: ${describe(sub)} needs ${wanted}; no read shows it, so it is not checked`);
        continue;
      }
      if (!seen.has(endpoint)) seen.set(endpoint, await apiCall(endpoint));
      const probe = seen.get(endpoint);
      if (probe?.ok) {
        if (level === 'write')
          line('info', `${name}: ${describe(sub)} needs ${wanted}: reading works; writing cannot be checked without writing`);
        continue;
      }
      const said = probe?.error.details?.acceptedPermissions;
      line(
        'warn',
        `${name}: ${describe(sub)} needs ${wanted}: GET ${endpoint.split('?')[0]} was refused (${probe ? probe.error.code : 'no answer'}${typeof said === 'string' ? `; the code host asks for ${said}` : ''})`,
      );
    }
  }
  if (needs.length > 0) {
    const all = mergeGrants(...needs.map((n) => n.grant));
    const listed = Object.entries(all.fineGrained).map(([p, l]) => permissionText(p, l));
    line('info', `${name}: in all its subscriptions need ${listed.join('; ') || 'nothing beyond the token'}`);
  }
  line(
    'info',
    `${name}: what each step needs is in docs/guides/github-token.md; a step the token cannot run answers forbidden, naming the permission`,
  );
}

/**
 * `npm run doctor`'s look at each code-host connection: what its subscriptions need of the
 * token (the catalog's declarations), against what the token has, asked through the
 * runtime's own API Call step so the token never leaves it: its scopes when it says them
 * (`X-OAuth-Scopes` on `GET /user`), else by reading.
 */
export async function checkConnectionGrants(call: RuntimeCall, connections: unknown[], line: Line) {
  for (const raw of connections) {
    const parsed = connectionShape.safeParse(raw);
    if (!parsed.success || parsed.data.kind !== 'code-host') continue;
    const c = parsed.data;
    const name = `connection ${c.id} (${c.provider}, ${c.accountLogin})`;
    const apiCall = async (endpoint: string): Promise<ApiCallAnswer> => {
      const answer = await call('POST', '/tools/github.api_call/invoke', { connectionId: c.id, input: { method: 'GET', endpoint } });
      const result = toolAnswer.safeParse(answer?.body);
      return result.success ? result.data : undefined;
    };
    const listed = await call('GET', `/subscriptions?connectionId=${encodeURIComponent(c.id)}`);
    const subs = z.object({ subscriptions: z.array(subscriptionShape) }).safeParse(listed?.body);
    const needs = (subs.success ? subs.data.subscriptions : [])
      .filter((s) => isTriggerId(s.trigger))
      .flatMap((s) => {
        const grant = triggerCatalog[s.trigger as keyof typeof triggerCatalog].permissions(targetOf(s));
        return grant ? [{ sub: s, grant }] : [];
      });
    const identity = await apiCall('/user');
    if (!identity?.ok) {
      line('warn', `${name}: the code host could not be asked about the token (${identity ? identity.error.message : 'no answer'})`);
      continue;
    }
    const header = identity.data.headers?.['x-oauth-scopes'];
    if (header === undefined) {
      await checkByReading(name, needs, apiCall, line);
      continue;
    }
    const scopes = header
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    checkScopes(name, scopes, needs, line);
  }
}
