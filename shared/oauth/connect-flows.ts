import type { AppContext } from '../ports/app-context';
import type { ConnectChoice } from '../store/connect-session-repo';

/** What the connect page shows of one way to connect: the button's words and the line under it. */
export interface OfferWords {
  title: string;
  how: string;
}

/** A way to connect a provider's account besides its OAuth (the code host's App), as the connect page offers it. */
export interface ConnectFlow extends OfferWords {
  /** The connect session's choice it answers. */
  choice: ConnectChoice;
  /** Whether the operator has set it up. */
  configured(ctx: AppContext): Promise<boolean>;
  /** The URL the browser goes on to, carrying the session's hash so the connection is made for its end user. */
  start(ctx: AppContext, body: { returnTo?: string; label?: string }, sessionHash: string): Promise<string>;
}

/** What a provider offers on the connect page besides its OAuth. */
export interface ProviderConnect {
  flows?: readonly ConnectFlow[];
  /** The words of its token offer, when it takes a token the user made (its `userToken` part). */
  token?: OfferWords;
}

declare module '../ports/provider-contract' {
  interface ProviderContract {
    connect?: ProviderConnect;
  }
}
