import { defineProvider, type ProviderTools } from '../../tools/tool-step';
import { contentSnareClientFactory, type ContentSnareFactoryOptions } from './client-factory';
import { managedSnareHookIds } from './managed-webhooks';
import { apiCall } from './tool-steps/api-call';
import { createClient } from './tool-steps/create-client';
import { createRequest } from './tool-steps/create-request';
import { getRequest } from './tool-steps/get-request';
import { listClients } from './tool-steps/list-clients';
import { listRequests } from './tool-steps/list-requests';

/** The collection service's tool steps with a client factory built from `options` (tests, benchmark). */
export function createContentsnareTools(options: ContentSnareFactoryOptions = {}): ProviderTools {
  return defineProvider({
    provider: 'contentsnare',
    steps: [createClient, createRequest, apiCall, getRequest, listRequests, listClients],
    client: contentSnareClientFactory(options),
    managedHookIds: managedSnareHookIds,
  });
}

/** The collection service's tool steps, with the real limits. */
export const contentsnareTools = createContentsnareTools();
