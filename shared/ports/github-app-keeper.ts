/**
 * A GitHub App the code host made from the product's manifest: what the runtime needs to act as
 * it (the answer of `POST /app-manifests/{code}/conversions`, checked).
 */
export interface NewGitHubApp {
  appId: string;
  slug: string;
  clientId: string;
  clientSecret: string;
  /** PEM text of the App's private key. */
  privateKey: string;
  webhookSecret: string;
}

/**
 * Where the App was kept. `inUse`: the runtime acts as it from now on, with nothing more to set.
 * Otherwise `settings` (none secret) are what an operator still sets, and `nextStep` says how.
 */
export type KeptGitHubApp = { inUse: true } | { inUse: false; settings: Record<string, string>; nextStep: string };

/** Keeps a new App's settings where the runtime reads them (the data directory locally, Secrets Manager on AWS). */
export type GitHubAppKeeper = (app: NewGitHubApp) => Promise<KeptGitHubApp>;
