import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../ports/app-context';
import { codeHostAccess } from '../code-host-access';
import { githubApiBase } from '../github-base';
import { assertReachableWebhookUrl } from '../../../subscriptions/public-url-check';
import { ConditionFailedError } from '../../../domain/errors';
import { secretNames, type Connection, type Endpoint, type EndpointTarget } from '../../../domain/model';
import type { TriggerId } from '../../../domain/triggers';
import { createHook, deleteHook, findHookByUrl, updateHook, type HookConfig } from '../webhooks/hook-registration';
import { EndpointRepo, endpointIdFor } from '../../../store/endpoint-repo';
import { SubscriptionRepo } from '../../../store/subscription-repo';
import { hookEventsFor } from '../../../subscriptions/trigger-rules';
import type { TriggerCatalog } from '../../../domain/trigger-catalog';
import { triggerCatalogOf } from '../../../ports/provider-contract';
import type { ReleaseOutcome } from '../../../subscriptions/hook-manager';

/** The URL the code host posts an endpoint's deliveries to. */
export function webhookUrl(ctx: Pick<AppContext, 'config'>, endpointId: string): string {
  // A relay channel has one URL: the endpoint rides in the query, which the relay passes on.
  const proxy = ctx.config.webhookProxyUrl;
  if (proxy) return `${proxy}${proxy.includes('?') ? '&' : '?'}endpoint=${encodeURIComponent(endpointId)}`;
  return `${ctx.config.publicUrl}/webhooks/github/${endpointId}`;
}

/** 32 random bytes as hex: the hook's HMAC key. */
function newSecret(): string {
  return randomBytes(32).toString('hex');
}

async function triggersOnEndpoint(ctx: AppContext, connectionId: string, endpointId: string): Promise<TriggerId[]> {
  const subs = await new SubscriptionRepo(ctx.store).list(connectionId);
  return subs.filter((s) => s.delivery === 'webhook' && s.endpointId === endpointId).map((s) => s.trigger);
}

/**
 * The events a hook carries for its triggers, and `repository` besides: its `renamed` and
 * `transferred` deliveries keep the stored names of the repository (or the organization's
 * repositories) current (shared/providers/github/intake/follow-renames.ts). A hook made before carries it from
 * its next change (a subscription added or removed on it).
 */
export function endpointHookEvents(catalog: TriggerCatalog, triggers: readonly TriggerId[]): string[] {
  return triggers.length === 0 ? [] : [...new Set([...hookEventsFor(catalog, triggers), 'repository'])].sort();
}

/**
 * Makes sure the connection has a hook on `target` carrying the events of every trigger
 * already routed there plus `trigger`. Call it under the endpoint's lease.
 * Order: secret, then endpoint item, then the hook, then the hook id on the item; a crash
 * in between leaves at worst a hook whose deliveries find no subscription, and the next
 * attempt adopts that hook by its URL instead of making a second one.
 * Throws `forbidden` (naming the permission) when the code host refuses, `not_found` when it
 * answers 404, `public_url_unreachable` for a loopback or private webhook URL on a public code host.
 */
export async function ensureHook(ctx: AppContext, connection: Connection, target: EndpointTarget, trigger: TriggerId): Promise<Endpoint> {
  const endpoints = new EndpointRepo(ctx.store);
  const id = endpointIdFor(connection.id, target);
  // Before anything is stored or asked: a URL the code host would refuse gets the fix, not its 422.
  assertReachableWebhookUrl(webhookUrl(ctx, id), githubApiBase(connection, ctx.config));
  let endpoint = await endpoints.get(id);
  let secret = await ctx.secrets.get(secretNames.endpointSecret(id));
  let secretChanged = false;
  if (secret === undefined) {
    secret = newSecret();
    secretChanged = true;
    await ctx.secrets.put(secretNames.endpointSecret(id), secret);
  }
  if (!endpoint) {
    endpoint = { id, connectionId: connection.id, target, events: [], createdAt: new Date(ctx.clock.now()).toISOString() };
    try {
      await endpoints.create(endpoint);
    } catch (e) {
      if (!(e instanceof ConditionFailedError)) throw e;
      endpoint = (await endpoints.get(id)) ?? endpoint;
    }
  }
  const existing = await triggersOnEndpoint(ctx, connection.id, id);
  const events = endpointHookEvents(triggerCatalogOf(ctx.providers), [...existing, trigger]);
  const config: HookConfig = { url: webhookUrl(ctx, id), secret };
  const access = await codeHostAccess(ctx, connection);
  const current = endpoint;
  let hookId = current.hookId;
  const needsUpdate = hookId === undefined || secretChanged || !sameSet(events, current.events);
  if (!needsUpdate) return current;
  try {
    if (hookId === undefined) {
      hookId = await findHookByUrl(ctx.fetch, access, target, config.url);
      if (hookId !== undefined) await updateHook(ctx.fetch, access, target, hookId, config, events);
      else hookId = await createHook(ctx.fetch, access, target, config, events);
    } else {
      const stillThere = await updateHook(ctx.fetch, access, target, hookId, config, events);
      if (!stillThere) hookId = await createHook(ctx.fetch, access, target, config, events);
    }
  } catch (e) {
    // Nothing routed here and no hook made: leave no trace (a later try starts clean).
    if (existing.length === 0 && current.hookId === undefined) await forgetEndpoint(ctx, id);
    throw e;
  }
  const finalHookId = hookId;
  const saved = await endpoints.update(id, (e) => ({ ...e, hookId: finalHookId, events }));
  return saved ?? { ...current, hookId: finalHookId, events };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

async function forgetEndpoint(ctx: AppContext, endpointId: string): Promise<void> {
  await new EndpointRepo(ctx.store).delete(endpointId);
  await ctx.secrets.delete(secretNames.endpointSecret(endpointId));
}

/**
 * After a subscription left the endpoint: deletes the hook (then the endpoint and its
 * secret) when no subscription uses it any more, else narrows its events. Failures at the
 * code host are reported, not thrown: the subscription is gone either way, and an endpoint
 * whose hook could not be deleted is kept so a later attempt can finish the job.
 * Call it under the endpoint's lease.
 */
export async function releaseEndpoint(ctx: AppContext, connection: Connection | undefined, endpointId: string): Promise<ReleaseOutcome> {
  const endpoints = new EndpointRepo(ctx.store);
  const endpoint = await endpoints.get(endpointId);
  if (!endpoint) return { hook: 'none' };
  const remaining = await triggersOnEndpoint(ctx, endpoint.connectionId, endpointId);
  try {
    if (remaining.length === 0) {
      if (endpoint.hookId !== undefined) {
        if (!connection) throw new Error('the connection is gone');
        await deleteHook(ctx.fetch, await codeHostAccess(ctx, connection), endpoint.target, endpoint.hookId);
      }
      await forgetEndpoint(ctx, endpointId);
      return { hook: endpoint.hookId === undefined ? 'none' : 'deleted' };
    }
    const events = endpointHookEvents(triggerCatalogOf(ctx.providers), remaining);
    if (endpoint.hookId === undefined || sameSet(events, endpoint.events)) return { hook: 'kept' };
    if (!connection) throw new Error('the connection is gone');
    const secret = await ctx.secrets.get(secretNames.endpointSecret(endpointId));
    if (secret === undefined) throw new Error('the endpoint secret is missing');
    const access = await codeHostAccess(ctx, connection);
    await updateHook(ctx.fetch, access, endpoint.target, endpoint.hookId, { url: webhookUrl(ctx, endpointId), secret }, events);
    await endpoints.update(endpointId, (e) => ({ ...e, events }));
    return { hook: 'updated' };
  } catch (e) {
    const what = remaining.length === 0 ? 'delete' : 'narrow the events of';
    ctx.logger.warn('webhook cleanup failed', { endpointId, hookId: endpoint.hookId, error: e });
    return { hook: 'kept', warning: `Could not ${what} the webhook ${endpoint.hookId ?? ''} at the code host: ${(e as Error).message}` };
  }
}
