import * as z from 'zod';
import type { AppContext } from '../../../../ports/app-context';
import type { NewGitHubApp } from '../../../../ports/github-app-keeper';
import { AppError } from '../../../../domain/errors';
import { githubTimeoutMs } from '../../github-base';
import { appCall } from '../app-http';

/** The conversion's answer: an App's description with four secrets, a few kilobytes. */
export const conversionMaxBytes = 64 * 1024;

/**
 * What the product keeps of `POST /app-manifests/{code}/conversions` (GitHub's "Create a GitHub
 * App from a manifest": 201, the App with `client_id`, `client_secret`, `webhook_secret` and
 * `pem`). `webhook_secret` may be null in the description (an App made without a webhook); the
 * manifest asks for one, so an App without it is refused: its deliveries could not be checked.
 */
const conversionSchema = z.object({
  id: z.number().int().positive(),
  slug: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and hyphens')
    .max(100),
  client_id: z.string().min(1).max(100),
  client_secret: z.string().min(1).max(500),
  webhook_secret: z.string().min(1, 'an App made without a webhook secret cannot be used').max(500),
  pem: z
    .string()
    .max(16 * 1024)
    .regex(/-----BEGIN (RSA )?PRIVATE KEY-----/, 'a PEM private key'),
  html_url: z.url().optional(),
  owner: z.object({ login: z.string() }).nullable().optional(),
});

/** What the page says of the App made (nothing secret). */
export interface MadeApp {
  app: NewGitHubApp;
  htmlUrl?: string;
  owner?: string;
}

/** A code GitHub does not take (404, 422): used already, or older than its hour. */
function codeRefused(e: unknown): AppError | undefined {
  const status = e instanceof AppError ? e.details?.status : undefined;
  if (status !== 404 && status !== 422) return undefined;
  return new AppError(
    'upstream_error',
    `The code host did not take the App's code (HTTP ${status}): it was used, or is older than an hour; make the App again`,
    {
      status,
    },
  );
}

/** Trades GitHub's one-hour code for the new App, checked field by field; no redirect is followed. */
export async function convertManifestCode(ctx: Pick<AppContext, 'config' | 'fetch' | 'clock'>, code: string): Promise<MadeApp> {
  const data = await appCall(
    { fetch: ctx.fetch, clock: ctx.clock, timeoutMs: githubTimeoutMs(ctx.config.upstreamTimeoutSeconds) },
    {
      method: 'POST',
      url: `${ctx.config.github.apiUrl}/app-manifests/${encodeURIComponent(code)}/conversions`,
      maxBytes: conversionMaxBytes,
      service: "the App manifest's conversion",
    },
  ).catch((e: unknown) => {
    throw codeRefused(e) ?? e;
  });
  const parsed = conversionSchema.safeParse(data);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'} (${i.message})`);
    throw new AppError('upstream_error', `The code host's answer to the App manifest's conversion is not usable: ${fields.join(', ')}`, {
      fields: parsed.error.issues.map((i) => i.path.join('.')),
    });
  }
  const a = parsed.data;
  return {
    app: {
      appId: String(a.id),
      slug: a.slug,
      clientId: a.client_id,
      clientSecret: a.client_secret,
      privateKey: a.pem,
      webhookSecret: a.webhook_secret,
    },
    ...(a.html_url ? { htmlUrl: a.html_url } : {}),
    ...(a.owner?.login ? { owner: a.owner.login } : {}),
  };
}
