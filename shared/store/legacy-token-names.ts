import { secretNames } from '../domain/model';
import type { SecretStore } from '../ports';

const contentsnareToken = /^contentsnare-connections\/(.+)\/token$/s;

/**
 * The collection service's connection tokens were kept beside the code host's
 * (`connections/<id>/token`) before each provider had its own secret area. This store moves
 * one such token on first use: a read that finds nothing under the new name reads the old
 * one and, when it is there, writes it under the new name and deletes the old; a write or a
 * delete under the new name deletes the old one too, so no copy outlives the move.
 * Only functions granted the old area use it (on AWS: every token user but the webhook
 * intake, which is never granted the code host's area; docs/operations.md, "Secret areas").
 */
export function movingLegacyTokenNames(inner: SecretStore): SecretStore {
  const legacyOf = (name: string) => {
    const m = contentsnareToken.exec(name);
    return m ? secretNames.legacyConnectionToken(m[1] as string) : undefined;
  };
  return {
    async get(name, opts) {
      const value = await inner.get(name, opts);
      const legacy = legacyOf(name);
      if (value !== undefined || legacy === undefined) return value;
      const old = await inner.get(legacy, { fresh: true });
      if (old === undefined) return undefined;
      await inner.put(name, old);
      await inner.delete(legacy);
      return old;
    },
    async put(name, value) {
      await inner.put(name, value);
      const legacy = legacyOf(name);
      // Deleted only when there is one: on AWS only the platform API may delete secrets, so an
      // unconditional delete refused every collection-service token write of the other functions.
      if (legacy !== undefined && (await inner.get(legacy, { fresh: true })) !== undefined) await inner.delete(legacy);
    },
    async delete(name) {
      await inner.delete(name);
      const legacy = legacyOf(name);
      if (legacy !== undefined) await inner.delete(legacy);
    },
  };
}
