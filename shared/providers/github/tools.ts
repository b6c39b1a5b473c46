import { defineProvider } from '../../tools/tool-step';
import { apiCall } from './api-call';
import { githubClientFactory } from './client-factory';
import { mapGitHubError } from './github-errors';
import { managedCodeHostHookIds } from './managed-hooks';
import { githubSteps } from './tool-steps';

/** Every code-host tool step: the 25 pre-built ones, then `github.api_call`. */
export const githubTools = defineProvider({
  provider: 'github',
  steps: [...githubSteps, apiCall],
  client: githubClientFactory,
  mapError: (e, nowMs) => mapGitHubError(e, nowMs),
  managedHookIds: managedCodeHostHookIds,
});
