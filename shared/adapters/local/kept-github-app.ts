import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import type { GitHubAppConfig } from '../../config/config';
import type { GitHubAppKeeper, NewGitHubApp } from '../../ports/github-app-keeper';

const fileSchema = z.object({
  appId: z.string().min(1),
  slug: z.string().min(1),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  privateKey: z.string().min(1),
  webhookSecret: z.string().min(1),
});

/** The App the manifest flow made, in the data directory (0600, like the platform key's file). */
export const keptGithubAppFile = (dataDir: string) => join(dataDir, 'github-app.json');

/**
 * The kept App as the `GITHUB_APP_*` settings the runtime starts with, or none. A file that
 * cannot be read is an error naming it, never an App silently missing.
 */
export function keptGithubAppEnvironment(dataDir: string): Record<string, string> {
  const file = keptGithubAppFile(dataDir);
  if (!existsSync(file)) return {};
  const parsed = fileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: not a GitHub App (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`);
  const app = parsed.data;
  return {
    GITHUB_APP_ID: app.appId,
    GITHUB_APP_SLUG: app.slug,
    GITHUB_APP_CLIENT_ID: app.clientId,
    GITHUB_APP_CLIENT_SECRET: app.clientSecret,
    GITHUB_APP_PRIVATE_KEY: app.privateKey,
    GITHUB_APP_WEBHOOK_SECRET: app.webhookSecret,
  };
}

function writeKept(dataDir: string, app: NewGitHubApp): void {
  const file = keptGithubAppFile(dataDir);
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(fileSchema.parse(app), null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/**
 * Locally the App is written to the data directory, read again at each start, and put in use at
 * once: the runtime's settings object is the one every part reads the App from at each use (the
 * App's flow, its webhook, its tokens), so no restart is needed.
 */
export function localGithubAppKeeper(dataDir: string, github: { app?: GitHubAppConfig }): GitHubAppKeeper {
  return async (app) => {
    writeKept(dataDir, app);
    github.app = {
      appId: app.appId,
      slug: app.slug,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      privateKey: app.privateKey,
      webhookSecret: app.webhookSecret,
    };
    return { inUse: true };
  };
}
