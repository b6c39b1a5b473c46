import type { AppContext } from '../ports/app-context';
import { startAuthorization } from '../oauth/authorize';
import type { ConnectFlow } from '../oauth/connect-flows';
import { clientCredentials } from '../oauth/providers';
import type { ProviderContract, Providers } from '../ports/provider-contract';
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

function byOAuth(provider: ProviderContract): OfferDef {
  const name = provider.oauth.displayName;
  return {
    title: `${name}`,
    how: `Sign in at ${name} and approve the access asked for.`,
    of: provider.id,
    configured: (ctx) => settled(clientCredentials(ctx, provider.id)),
    start: async (ctx, s, hash) => (await startAuthorization(ctx, provider.id, flowBody(s), hash)).authorizeUrl,
  };
}

function byFlow(flow: ConnectFlow): OfferDef {
  return {
    title: flow.title,
    how: flow.how,
    of: flow.choice,
    configured: (ctx) => flow.configured(ctx),
    start: (ctx, s, hash) => flow.start(ctx, flowBody(s), hash),
  };
}

const built = new WeakMap<Providers, Partial<Record<ConnectOffer, OfferDef>>>();

/**
 * The offers of these providers, in the order the page lists them: each provider's OAuth,
 * its other flows (the code host's App), then its token when it takes one.
 */
export function connectOffersOf(providers: Providers): Partial<Record<ConnectOffer, OfferDef>> {
  let offers = built.get(providers);
  if (!offers) {
    offers = {};
    for (const p of Object.values(providers)) {
      offers[p.id] = byOAuth(p);
      for (const flow of p.connect?.flows ?? []) offers[flow.choice] = byFlow(flow);
      const token = p.connect?.token;
      if (token) offers.token = { ...token, of: p.id, configured: async () => true };
    }
    built.set(providers, offers);
  }
  return offers;
}

/** The offers a session's page shows, in the page's order. */
export function offersOf(offers: Partial<Record<ConnectOffer, OfferDef>>, session: ConnectSession): ConnectOffer[] {
  return (Object.keys(offers) as ConnectOffer[]).filter((o) => {
    const of = offers[o]?.of;
    return of !== undefined && session.providers.includes(of);
  });
}
