import type { AppContext } from '../ports/app-context';
import { startAuthorization } from '../oauth/authorize';
import { appClientCredentials } from '../providers/github/app/app-credentials';
import { startAppAuthorization } from '../providers/github/app/app-authorize';
import { githubOAuth } from '../providers/github/oauth/definition';
import { contentSnareOAuth } from '../providers/contentsnare/oauth/definition';
import { clientCredentials } from '../oauth/providers';
import type { ConnectChoice, ConnectSession } from '../store/connect-session-repo';

/** What a connect page offers: each service it was made for, and a fine-grained token beside the code host's OAuth. */
export type ConnectOffer = ConnectChoice | 'token';

export interface OfferDef {
  /** The button's words. */
  title: string;
  /** One line under it: what happens next. */
  how: string;
  /** The service of the session this offer belongs to. */
  of: ConnectChoice;
  /** Whether the operator has set it up (an offer that is not is shown as unavailable, not hidden). */
  configured(ctx: AppContext): Promise<boolean>;
  /**
   * The flow's start: the URL the browser goes on to, carrying the session's hash so the
   * connection is made for its end user. Absent: the offer is a form of its own (the token).
   */
  start?(ctx: AppContext, session: ConnectSession, sessionHash: string): Promise<string>;
}

const settled = (p: Promise<unknown>) =>
  p.then(
    () => true,
    () => false,
  );

const flowBody = (s: ConnectSession) => ({
  ...(s.returnTo !== undefined ? { returnTo: s.returnTo } : {}),
  ...(s.label !== undefined ? { label: s.label } : {}),
});

const oauthDefs = { github: githubOAuth, contentsnare: contentSnareOAuth };

function byOAuth(provider: 'github' | 'contentsnare'): OfferDef {
  const name = oauthDefs[provider].displayName;
  return {
    title: `${name}`,
    how: `Sign in at ${name} and approve the access asked for.`,
    of: provider,
    configured: (ctx) => settled(clientCredentials(ctx, provider)),
    start: async (ctx, s, hash) => (await startAuthorization(ctx, provider, flowBody(s), hash)).authorizeUrl,
  };
}

/** In the order the page lists them. */
export const connectOffers: Record<ConnectOffer, OfferDef> = {
  github: byOAuth('github'),
  github_app: {
    title: `${githubOAuth.displayName}, through the App`,
    how: 'Install the App on your account or organization (or choose an installation), then approve it.',
    of: 'github_app',
    configured: (ctx) => settled(appClientCredentials(ctx)),
    start: async (ctx, s, hash) => (await startAppAuthorization(ctx, flowBody(s), hash)).authorizeUrl,
  },
  token: {
    title: `${githubOAuth.displayName}, with a fine-grained token`,
    how: 'Make a fine-grained personal access token at GitHub (Settings, Developer settings) and paste it here.',
    of: 'github',
    configured: async () => true,
  },
  contentsnare: byOAuth('contentsnare'),
};

/** The offers a session's page shows, in the page's order. */
export function offersOf(session: ConnectSession): ConnectOffer[] {
  return (Object.keys(connectOffers) as ConnectOffer[]).filter((o) => session.providers.includes(connectOffers[o].of));
}
