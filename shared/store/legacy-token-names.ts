import { secretNames } from '../domain/model';
import type { SecretStore } from '../ports';

const contentsnareToken = /^contentsnare-connections\/(.+)\/token$/s;

/**
 * The collection service's connection tokens were kept beside the code host's
 * (`connections/<id>/token`) before each provider had its own secret area. This store copies
 * one such token on first use: a read that finds nothing under the new name reads the old
 * one and, when it is there, writes it under the new name, which is read from then on. The old
 * copy is not deleted there: on AWS only the platform API may delete secrets, so a delete
 * from the other token users would refuse the read itself. It goes when the connection is
 * disconnected (a delete removes both names, and only the platform API deletes).
 * Only functions granted the old area use it (on AWS: every token user but the webhook
 * intake, which is granted neither token area; docs/operations.md, "Secret areas").
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
      return old;
    },
    put: (name, value) => inner.put(name, value),
    async delete(name) {
      await inner.delete(name);
      const legacy = legacyOf(name);
      if (legacy !== undefined) await inner.delete(legacy);
    },
  };
}
