import { describe, expect, it } from 'vitest';
import { summarizeDeadLetter } from '../../local/admin/dead-letters';
import { newSnareReadBack, snareReadBackMessage } from '../../shared/providers/contentsnare/dispatch/read-back-job';

describe('a dead-lettered collection-service read-back, as the operator reads it', () => {
  it('names its trigger and connection, with no problem: a redrive works it again', async () => {
    const job = newSnareReadBack(`conn_${'a'.repeat(32)}`, { event: 'request_completed', subject: 'request', id: 'req_1' }, 0);
    const summary = await summarizeDeadLetter({ messageId: 'm1', body: snareReadBackMessage(job).body, receiveCount: 8 });
    expect(summary).toEqual({
      messageId: 'm1',
      receiveCount: 8,
      trigger: 'contentsnare.request_completed',
      deliveryId: `read-back for conn_${'a'.repeat(32)}`,
    });
  });
});
