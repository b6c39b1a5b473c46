import { describe, expect, it } from 'vitest';
import { movingLegacyTokenNames } from '../../shared/store/legacy-token-names';
import type { SecretStore } from '../../shared/ports';

/** The memory store, recording every delete (on AWS only the platform API may delete secrets). */
class DeleteRecordingStore implements SecretStore {
  readonly values = new Map<string, string>();
  readonly deletes: string[] = [];
  async get(name: string) {
    return this.values.get(name);
  }
  async put(name: string, value: string) {
    this.values.set(name, value);
  }
  async delete(name: string) {
    this.deletes.push(name);
    this.values.delete(name);
  }
}

describe('moving collection-service tokens from their old name', () => {
  it('a token write with no old-name copy deletes nothing (a function without the delete grant can write it)', async () => {
    const inner = new DeleteRecordingStore();
    await movingLegacyTokenNames(inner).put('contentsnare-connections/conn_a/token', 'new');
    expect(inner.values.get('contentsnare-connections/conn_a/token')).toBe('new');
    expect(inner.deletes).toEqual([]);
  });

  it('a read finding only the old-name copy serves it and copies it under the new name, deleting nothing (only the platform API may delete)', async () => {
    const inner = new DeleteRecordingStore();
    inner.values.set('connections/conn_b/token', 'old');
    expect(await movingLegacyTokenNames(inner).get('contentsnare-connections/conn_b/token')).toBe('old');
    expect(inner.values.get('contentsnare-connections/conn_b/token')).toBe('old');
    expect(inner.deletes).toEqual([]);
  });

  it('a disconnect deletes both names, so no copy outlives the connection', async () => {
    const inner = new DeleteRecordingStore();
    inner.values.set('connections/conn_d/token', 'old');
    inner.values.set('contentsnare-connections/conn_d/token', 'new');
    await movingLegacyTokenNames(inner).delete('contentsnare-connections/conn_d/token');
    expect(inner.deletes.sort()).toEqual(['connections/conn_d/token', 'contentsnare-connections/conn_d/token']);
    expect(inner.values.size).toBe(0);
  });

  it("the code host's tokens keep their name and are never looked up elsewhere", async () => {
    const inner = new DeleteRecordingStore();
    await movingLegacyTokenNames(inner).put('connections/conn_c/token', 'gh');
    expect(inner.deletes).toEqual([]);
    expect(inner.values.get('connections/conn_c/token')).toBe('gh');
  });
});
