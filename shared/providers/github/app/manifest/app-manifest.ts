import grants from './manifest-grants.json';

/**
 * The manifest of GitHub's App manifest flow ("Registering a GitHub App from a manifest"): the
 * App is made with what the product's steps and triggers declare they need
 * (`manifest-grants.json`, written by `npm run guides` from the same declarations the guide's
 * permission tables come from; a test holds it current).
 */
export interface AppManifest {
  name: string;
  url: string;
  hook_attributes: { url: string; active: boolean };
  redirect_url: string;
  callback_urls: string[];
  request_oauth_on_install: boolean;
  setup_on_update: boolean;
  public: boolean;
  default_permissions: Record<string, string>;
  default_events: string[];
}

/** The routes GitHub is told about: the App's webhook, its user authorization's callback, and the manifest flow's return. */
export function appManifest(input: { publicUrl: string; name: string }): AppManifest {
  const base = input.publicUrl;
  return {
    name: input.name,
    url: base,
    hook_attributes: { url: `${base}/webhooks/github/app`, active: true },
    redirect_url: `${base}/github-app/manifest/callback`,
    // The install flow's return (app-callback.ts), with the user's authorization asked during installation.
    callback_urls: [`${base}/oauth/github-app/callback`],
    request_oauth_on_install: true,
    setup_on_update: false,
    public: false,
    default_permissions: { ...grants.default_permissions },
    default_events: [...grants.default_events],
  };
}
