import type { z } from 'zod';
import type { ProviderTools, ToolStep } from '../tools/tool-step';
import { apiCall } from './api-call';
import { githubClientFactory } from './client-factory';
import { mapGitHubError } from './github-errors';
import type { GitHubClient } from './octokit';
import { githubSteps } from './tool-steps';

/** Every code-host tool step: the 25 pre-built ones, then `github.api_call`. */
export const githubTools: ProviderTools<GitHubClient> = {
  provider: 'github',
  steps: [...(githubSteps as ToolStep<z.ZodType, GitHubClient>[]), apiCall as unknown as ToolStep<z.ZodType, GitHubClient>],
  client: githubClientFactory,
  mapError: (e, nowMs) => mapGitHubError(e, nowMs),
};
