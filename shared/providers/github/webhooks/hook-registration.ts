import type { CodeHostAccess } from '../code-host-access';
import { AppError } from '../../../domain/errors';
import type { EndpointTarget } from '../../../domain/model';
import type { Fetch } from '../../../ports';
import { isOk, orgPath, repoPath, restCall, upstreamMessage, type RestResult } from './rest-call';

/** Where a target's hooks live at the code host. */
export function hooksPath(target: EndpointTarget): string {
  return target.kind === 'repository' ? `${repoPath(target.repository)}/hooks` : `${orgPath(target.organization)}/hooks`;
}

/** The permission a token lacks when the code host refuses to manage a target's hooks. */
export function missingHookPermission(target: EndpointTarget): string {
  return target.kind === 'repository'
    ? `admin rights on ${target.repository}: a classic token needs the admin:repo_hook scope, a fine-grained token the repository permission "Webhooks: Read and write"`
    : `owner rights on the organization ${target.organization}: a classic token needs the admin:org_hook scope, a fine-grained token the organization permission "Webhooks: Read and write"`;
}

export interface HookConfig {
  url: string;
  secret: string;
}

function hookBody(config: HookConfig, events: string[]) {
  return {
    name: 'web',
    active: true,
    events,
    config: { url: config.url, content_type: 'json', secret: config.secret, insecure_ssl: '0' },
  };
}

function failure(target: EndpointTarget, action: string, result: RestResult): AppError {
  if (result.status === 401) {
    return new AppError('reconnect_required', `The code host refused the connection's token while trying to ${action}; reconnect it`);
  }
  if (result.status === 404) {
    // The code host answers 404 both for what does not exist and for what the token may not see.
    return new AppError(
      'not_found',
      `The code host answered 404 when trying to ${action}: not found or not visible to this connection. Check the name; if it exists, the token may lack ${missingHookPermission(target)}`,
      { possiblyMissingPermission: missingHookPermission(target), upstreamStatus: result.status },
    );
  }
  if (result.status === 422 || result.status === 400) {
    const errors = (result.body as { errors?: unknown } | undefined)?.errors;
    return new AppError('invalid_input', `The code host refused to ${action} (${result.status}): ${upstreamMessage(result)}`, {
      upstreamStatus: result.status,
      ...(errors === undefined ? {} : { errors }),
    });
  }
  if (result.status === 403) {
    return new AppError(
      'forbidden',
      `The code host refused to ${action} (${upstreamMessage(result)}). Missing permission: ${missingHookPermission(target)}`,
      {
        missingPermission: missingHookPermission(target),
        upstreamStatus: result.status,
      },
    );
  }
  return new AppError('upstream_error', `The code host failed to ${action}: ${upstreamMessage(result)}`, { upstreamStatus: result.status });
}

function describe(target: EndpointTarget): string {
  return target.kind === 'repository' ? `repository ${target.repository}` : `organization ${target.organization}`;
}

/** Finds a hook we made earlier (same URL), e.g. after a crash between creating it and recording its id. */
export async function findHookByUrl(
  fetchFn: Fetch,
  access: CodeHostAccess,
  target: EndpointTarget,
  url: string,
): Promise<number | undefined> {
  const result = await restCall(fetchFn, { ...access, method: 'GET', path: `${hooksPath(target)}?per_page=100` });
  if (!isOk(result)) throw failure(target, `list the webhooks of ${describe(target)}`, result);
  const hooks = Array.isArray(result.body) ? (result.body as Array<{ id?: unknown; config?: { url?: unknown } }>) : [];
  const found = hooks.find((h) => h.config?.url === url && typeof h.id === 'number');
  return found?.id as number | undefined;
}

/** Creates the hook; returns its id. 403 -> `forbidden` naming the missing permission; 404 -> `not_found` (or not visible); 422 -> `invalid_input` with the code host's reasons. */
export async function createHook(
  fetchFn: Fetch,
  access: CodeHostAccess,
  target: EndpointTarget,
  config: HookConfig,
  events: string[],
): Promise<number> {
  const result = await restCall(fetchFn, { ...access, method: 'POST', path: hooksPath(target), body: hookBody(config, events) });
  const id = (result.body as { id?: unknown } | undefined)?.id;
  if (!isOk(result) || typeof id !== 'number') throw failure(target, `create a webhook on ${describe(target)}`, result);
  return id;
}

/**
 * Sets the hook's events and configuration (the secret too, so an adopted hook is signed
 * with the secret we hold). Returns false when the hook no longer exists at the code host.
 */
export async function updateHook(
  fetchFn: Fetch,
  access: CodeHostAccess,
  target: EndpointTarget,
  hookId: number,
  config: HookConfig,
  events: string[],
): Promise<boolean> {
  const result = await restCall(fetchFn, {
    ...access,
    method: 'PATCH',
    path: `${hooksPath(target)}/${hookId}`,
    body: hookBody(config, events),
  });
  if (result.status === 404) return false;
  if (!isOk(result)) throw failure(target, `update the webhook of ${describe(target)}`, result);
  return true;
}

/** Deletes the hook; a hook already gone counts as deleted. */
export async function deleteHook(fetchFn: Fetch, access: CodeHostAccess, target: EndpointTarget, hookId: number): Promise<void> {
  const result = await restCall(fetchFn, { ...access, method: 'DELETE', path: `${hooksPath(target)}/${hookId}` });
  if (result.status === 404 || isOk(result)) return;
  throw failure(target, `delete the webhook of ${describe(target)}`, result);
}
