import * as z from 'zod';
import type { AppContext } from '../../../../ports/app-context';
import type { KeptGitHubApp } from '../../../../ports/github-app-keeper';
import { AppError, InvalidInputError } from '../../../../domain/errors';
import { parseOrThrow } from '../../../../domain/validation';
import { randomUrlToken } from '../../../../oauth/pkce';
import { stateLifetimeMs } from '../../../../oauth/state-store';
import { appManifest, type AppManifest } from './app-manifest';
import { convertManifestCode } from './manifest-conversion';
import { consumeManifestState, openManifestState, saveManifestState } from './manifest-state';

/** GitHub's limit on an App's name. */
const maxNameLength = 34;

/** `POST /github-app/manifest`. `replace`: make a new App though one is configured (its connections stop working). */
export const manifestInputSchema = z
  .object({
    name: z.string().trim().min(1).max(maxNameLength).optional().describe("The App's name GitHub's page starts with"),
    organization: z
      .string()
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'a GitHub organization login')
      .optional()
      .describe('The organization that will own the App; without it, the account of the person who makes it'),
    replace: z.boolean().optional().describe('Make a new App even though one is configured'),
  })
  .strict();

export interface ManifestStart {
  url: string;
  expiresAt: string;
}

/**
 * Starts the manifest flow: a single-use state (10 minutes, kept hashed) and the URL of our page
 * that posts the manifest to GitHub from the person's browser (the flow needs a form POST).
 * Refused (409) while an App is configured, unless `replace`: a new App orphans the connections
 * made through the old one.
 */
export async function startManifest(ctx: AppContext, body: unknown): Promise<ManifestStart> {
  const input = parseOrThrow(manifestInputSchema, body ?? {});
  if (!ctx.keepGithubApp) throw new AppError('not_configured', 'This runtime cannot keep a GitHub App it makes');
  if (ctx.config.github.app && input.replace !== true) {
    throw new AppError(
      'conflict',
      `A GitHub App is configured already (${ctx.config.github.app.slug}); send "replace": true to make a new one in its place`,
      { field: 'replace' },
    );
  }
  const state = randomUrlToken();
  const expiresAt = ctx.clock.now() + stateLifetimeMs;
  await saveManifestState(ctx.store, state, {
    name: input.name ?? 'Agent integrations',
    expiresAt,
    ...(input.organization ? { organization: input.organization } : {}),
  });
  ctx.logger.info('github app manifest flow started', { organization: input.organization });
  const url = new URL(`${ctx.config.publicUrl}/github-app/manifest/start`);
  url.searchParams.set('state', state);
  return { url: url.toString(), expiresAt: new Date(expiresAt).toISOString() };
}

function oneState(query: URLSearchParams): string {
  const states = query.getAll('state');
  if (states.length !== 1 || !states[0])
    throw new InvalidInputError([{ field: 'state', message: states.length > 1 ? 'given more than once' : 'missing' }]);
  return states[0];
}

/** Where the manifest is posted, and what: GitHub's "new App" page of the account or the organization. */
export interface ManifestPost {
  action: string;
  manifest: AppManifest;
}

/** `GET /github-app/manifest/start?state=`: the form to post, once per state. */
export async function openManifest(ctx: AppContext, query: URLSearchParams): Promise<ManifestPost> {
  const state = oneState(query);
  const record = await openManifestState(ctx.store, ctx.clock, state);
  if (!record) throw new AppError('invalid_input', 'Unknown, expired or already used link; start making the App again');
  const owner = record.organization ? `/organizations/${encodeURIComponent(record.organization)}` : '';
  const action = new URL(`${ctx.config.github.oauthUrl}${owner}/settings/apps/new`);
  action.searchParams.set('state', state);
  return { action: action.toString(), manifest: appManifest({ publicUrl: ctx.config.publicUrl, name: record.name }) };
}

/** What the callback answers: the App made (nothing secret) and whether it is in use already. */
export interface ManifestOutcome {
  appId: string;
  slug: string;
  htmlUrl?: string;
  owner?: string;
  kept: KeptGitHubApp;
}

/**
 * `GET /github-app/manifest/callback?code&state`: the state is taken (once, unexpired, from a
 * page that was served), GitHub's code is traded for the App, and the App is kept where the
 * runtime reads it. The code is GitHub's; nothing is called before the state is taken.
 */
export async function finishManifest(ctx: AppContext, query: URLSearchParams): Promise<ManifestOutcome> {
  const state = oneState(query);
  const record = await consumeManifestState(ctx.store, ctx.clock, state);
  if (!record) throw new AppError('invalid_input', 'Unknown, expired or already used state; start making the App again');
  const code = query.get('code');
  if (!code) throw new InvalidInputError([{ field: 'code', message: 'missing: GitHub did not make the App' }]);
  if (!ctx.keepGithubApp) throw new AppError('not_configured', 'This runtime cannot keep a GitHub App it makes');
  const made = await convertManifestCode(ctx, code);
  const kept = await ctx.keepGithubApp(made.app);
  ctx.logger.info('github app made from the manifest', { appId: made.app.appId, slug: made.app.slug, inUse: kept.inUse });
  return {
    appId: made.app.appId,
    slug: made.app.slug,
    kept,
    ...(made.htmlUrl ? { htmlUrl: made.htmlUrl } : {}),
    ...(made.owner ? { owner: made.owner } : {}),
  };
}
