import { describe, expect, it } from 'vitest';
import { movingLegacyTokenNames } from '../../shared/store/legacy-token-names';
import { MemorySecretStore } from '../helpers/test-context';

/** The memory store, recording every delete (on AWS only the platform API may delete secrets). */
class DeleteRecordingStore extends MemorySecretStore {
  readonly deletes: string[] = [];
  override async delete(name: string) {
    this.deletes.push(name);
    await super.delete(name);
  }
}

describe('moving collection-service tokens from their old name', () => {
  it('a token write with no old-name copy deletes nothing (a function without the delete grant can write it)', async () => {
    const inner = new DeleteRecordingStore();
    await movingLegacyTokenNames(inner).put('contentsnare-connections/conn_a/token', 'new');
    expect(inner.values.get('contentsnare-connections/conn_a/token')).toBe('new');
    expect(inner.deletes).toEqual([]);
  });

  it('a token write with an old-name copy deletes the copy, so none outlives the move', async () => {
    const inner = new DeleteRecordingStore();
    inner.values.set('connections/conn_b/token', 'old');
    await movingLegacyTokenNames(inner).put('contentsnare-connections/conn_b/token', 'new');
    expect(inner.deletes).toEqual(['connections/conn_b/token']);
    expect(inner.values.has('connections/conn_b/token')).toBe(false);
  });

  it("the code host's tokens keep their name and are never looked up elsewhere", async () => {
    const inner = new DeleteRecordingStore();
    await movingLegacyTokenNames(inner).put('connections/conn_c/token', 'gh');
    expect(inner.deletes).toEqual([]);
    expect(inner.values.get('connections/conn_c/token')).toBe('gh');
  });
});
