import { isSnareTriggerId } from '../../../domain/triggers';
import type { TriggerExamples } from '../../../ports/trigger-examples';
import { snareExampleMapped } from './examples';
import { sendSnareExample } from './send-example';

/** The collection service's examples: each delivery as the intake maps it once read back from the example's records, and as `npm run trigger` posts it. */
export const snareExamples: TriggerExamples = {
  connection: {
    id: 'conn_example',
    provider: 'contentsnare',
    accountLogin: 'Olivia Owner',
    authMethod: 'token',
    status: 'connected',
    repositories: [],
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  },
  mapped: (trigger) => (isSnareTriggerId(trigger) ? snareExampleMapped(trigger) : []),
  send: (request) => sendSnareExample(request),
};
