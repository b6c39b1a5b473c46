import type { Connection } from '../../shared/domain/model';
import type { AppContext } from '../../shared/ports/app-context';
import { createTokenConnection } from '../../shared/connections/create-token-connection';
import { originOf } from '../../shared/oauth/token-origin';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';

/** The demo account of the simulated code host, and the repository the examples use. */
export const demo = {
  githubToken: 'sandbox-demo-github-token',
  githubLogin: 'octocat',
  repository: 'octocat/hello-world',
  contentsnareToken: 'sandbox-demo-contentsnare-token',
  githubLabel: 'Sandbox demo (simulated GitHub)',
  contentsnareLabel: 'Sandbox demo (simulated Content Snare)',
  /** The demo account of the simulated collection service: the admin of its seeded team. */
  contentsnareAccount: 'Olivia Owner',
} as const;

export interface DemoConnections {
  github: Connection;
  contentsnare: Connection;
  /** Acting through the simulated GitHub App (absent when the environment names an App of its own). */
  githubApp?: Connection;
}

/**
 * A demo connection of this sandbox: marked `sandboxDemo` (which no API sets) and still holding
 * the token the sandbox made. Its token is re-bound to this run's port; nothing else is touched,
 * whatever its label (a label is anyone's to set).
 */
async function adopt(
  ctx: AppContext,
  provider: Connection['provider'],
  accessToken: string,
  origin: string,
): Promise<Connection | undefined> {
  for (const c of await new ConnectionRepo(ctx.store).list()) {
    if (c.sandboxDemo !== true || c.provider !== provider) continue;
    const token = await readStoredToken(ctx.secrets, c);
    if (token?.accessToken !== accessToken) continue;
    if (token.origin !== origin) await writeStoredToken(ctx.secrets, c, { ...token, origin });
    return c;
  }
  return undefined;
}

/** The demo connection of the code host: its token connection, as `POST /connections` makes it, marked. */
export async function demoGitHubConnection(ctx: AppContext): Promise<Connection> {
  const found = await adopt(ctx, 'github', demo.githubToken, originOf(ctx.config.github.apiUrl));
  if (found) return found;
  const made = await createTokenConnection(ctx, { provider: 'github', token: demo.githubToken, label: demo.githubLabel });
  return (await new ConnectionRepo(ctx.store).update(made.id, (x) => ({ ...x, sandboxDemo: true }))) ?? made;
}

/** The demo connection of the collection service, which connects by OAuth only: what its callback would store. */
export async function demoContentSnareConnection(ctx: AppContext): Promise<Connection> {
  const origin = originOf(ctx.config.contentsnare.apiUrl);
  const found = await adopt(ctx, 'contentsnare', demo.contentsnareToken, origin);
  if (found) return found;
  const now = new Date(ctx.clock.now()).toISOString();
  const made: Connection = {
    id: ConnectionRepo.newId(),
    provider: 'contentsnare',
    label: demo.contentsnareLabel,
    accountLogin: demo.contentsnareAccount,
    authMethod: 'oauth',
    status: 'connected',
    repositories: [],
    sandboxDemo: true,
    createdAt: now,
    updatedAt: now,
  };
  await writeStoredToken(ctx.secrets, made, { accessToken: demo.contentsnareToken, origin });
  await new ConnectionRepo(ctx.store).create(made);
  return made;
}

/**
 * A connection made through a simulated OAuth flow holds a token that flow issued (kept across
 * restarts): it is the sandbox's, so its token is re-bound to this run's port. Any other
 * connection is left as it is.
 */
export async function rebindIssuedTokens(
  ctx: AppContext,
  provider: Connection['provider'],
  issued: ReadonlyMap<string, string>,
  apiUrl: string,
): Promise<void> {
  const origin = originOf(apiUrl);
  for (const c of await new ConnectionRepo(ctx.store).list()) {
    if (c.sandboxDemo === true || c.provider !== provider) continue;
    const held = await readStoredToken(ctx.secrets, c);
    if (held && issued.has(held.accessToken) && held.origin !== origin) await writeStoredToken(ctx.secrets, c, { ...held, origin });
  }
}
