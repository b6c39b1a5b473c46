import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';

/** The code-host REST client every step and the webhook registration use. */
export const GitHubOctokit = Octokit.plugin(throttling, retry);
export type GitHubClient = InstanceType<typeof GitHubOctokit>;
