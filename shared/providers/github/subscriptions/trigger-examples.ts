import type { Connection } from '../../../domain/model';
import type { TriggerExamples } from '../../../ports/trigger-examples';
import { loadExample } from '../triggers/example-docs';
import { mappedForQueue } from '../triggers/example-events';
import { sendGithubExample } from './send-example';

const exampleConnection: Connection = {
  id: 'conn_example',
  provider: 'github',
  accountLogin: 'octocat',
  authMethod: 'token',
  status: 'connected',
  repositories: [],
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
};

/** The code host's examples: its documented deliveries (examples/<name>.json), mapped as the intake or the poller would. */
export const githubExamples: TriggerExamples = {
  connection: exampleConnection,
  mapped: (trigger, sub, connection) => mappedForQueue(loadExample(trigger), sub, connection),
  send: (request) => sendGithubExample(request),
};
