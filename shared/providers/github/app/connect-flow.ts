import type { ConnectFlow, ProviderConnect } from '../../../oauth/connect-flows';
import { githubOAuth } from '../oauth/definition';
import { appClientCredentials } from './app-credentials';

/** Connecting through the GitHub App, as the connect page offers it beside the OAuth app. */
const githubAppFlow: ConnectFlow = {
  choice: 'github_app',
  title: `${githubOAuth.displayName}, through the App`,
  how: 'Install the App on your account or organization (or choose an installation), then approve it.',
  configured: (ctx) =>
    appClientCredentials(ctx).then(
      () => true,
      () => false,
    ),
  // Read on first use: only the OAuth function starts a flow, and the contract is in every function.
  start: async (ctx, body, hash) => (await (await import('./app-authorize')).startAppAuthorization(ctx, body, hash)).authorizeUrl,
};

/** The code host's offers beside its OAuth: the App, and a fine-grained token the user makes. */
export const githubConnect: ProviderConnect = {
  flows: [githubAppFlow],
  token: {
    title: `${githubOAuth.displayName}, with a fine-grained token`,
    how: 'Make a fine-grained personal access token at GitHub (Settings, Developer settings) and paste it here.',
  },
};
