import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { present } from '../../shared/domain/present';
import { generatedSecretsFile } from '../generated-secrets';

export type Env = Record<string, string | undefined>;

/** The local runtime's base URL as the CLIs reach it: `--url`, else `LOCAL_URL`, else 127.0.0.1:$PORT (3000). */
export function localUrl(env: Env, flag?: string): string {
  return (flag ?? env.LOCAL_URL ?? `http://127.0.0.1:${env.PORT && env.PORT !== '0' ? env.PORT : '3000'}`).replace(/\/+$/, '');
}

export function dataDir(env: Env): string {
  return resolve(env.DATA_DIR ?? '.data');
}

/** PLATFORM_API_KEY (its first, newest key during a rotation), else the key `npm start` generated in DATA_DIR/local-secrets.json. */
export function platformKey(env: Env): string | undefined {
  if (env.PLATFORM_API_KEY) return present(env.PLATFORM_API_KEY.split(',')[0], 'first key of PLATFORM_API_KEY').trim();
  const file = generatedSecretsFile(dataDir(env));
  if (!existsSync(file)) return undefined;
  try {
    const key = (JSON.parse(readFileSync(file, 'utf8')) as { platformApiKey?: unknown }).platformApiKey;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

export type AdminAnswer = { reachable: true; status: number; body: unknown } | { reachable: false; reason: string };

/** Nothing listens there (connection refused): the runtime is not running. */
function isRefused(e: unknown): boolean {
  const cause = (e as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNREFUSED' || (e as { code?: string })?.code === 'ECONNREFUSED';
}

/** Calls an admin route of the running local runtime; `reachable: false` when none runs there. */
export async function callAdmin(
  base: string,
  key: string | undefined,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  fetchImpl: typeof fetch = fetch,
): Promise<AdminAnswer> {
  let res: Response;
  try {
    res = await fetchImpl(`${base}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      // The platform key goes to the runtime itself, never after a redirect.
      redirect: 'error',
    });
  } catch (e) {
    if (isRefused(e)) return { reachable: false, reason: `nothing listens at ${base}` };
    throw e;
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Shown as text.
  }
  return { reachable: true, status: res.status, body: parsed };
}

/** The `error.message` of an error answer, or the answer itself. */
export function errorText(body: unknown): string {
  const message = (body as { error?: { message?: unknown } })?.error?.message;
  return typeof message === 'string' ? message : JSON.stringify(body);
}
