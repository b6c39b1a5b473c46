import { CreateSecretCommand, DeleteSecretCommand, PutSecretValueCommand, RestoreSecretCommand } from '@aws-sdk/client-secrets-manager';
import type { Clock, SecretStore } from '../../ports';
import { isSecretGone, readSecretString, type SecretsManagerSender } from './secrets-manager-reader';

/**
 * The SecretStore port over Secrets Manager; every name gets `prefix` (the stack grants
 * access to `<prefix>*` only). Values read are cached for `ttlMs` (GetSecretValue is
 * billed and throttled) and dropped on put/delete here; another container may read the
 * old value for up to `ttlMs`, which token users absorb (a refresh retries once).
 *
 * Delete uses ForceDeleteWithoutRecovery: the values are connection tokens and endpoint
 * secrets, and once the owner disconnects they must stop existing at once; a 7-30 day
 * recovery window would keep a live credential around and block the name. Put copes with
 * a name still scheduled for deletion (RestoreSecret, then write) all the same.
 */
export class SecretsManagerStore implements SecretStore {
  private readonly cache = new Map<string, { value: string; until: number }>();
  /** Bumped by every put/delete, so a read that raced a write cannot cache the old value. */
  private readonly generation = new Map<string, number>();

  constructor(
    private readonly client: SecretsManagerSender,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
  ) {}

  async get(name: string, opts?: { fresh?: boolean }): Promise<string | undefined> {
    const hit = this.cache.get(name);
    if (!opts?.fresh && hit && hit.until > this.clock.now()) return hit.value;
    const gen = this.generation.get(name) ?? 0;
    const value = await readSecretString(this.client, this.id(name));
    // Absence is not cached: a secret created elsewhere must show up at once.
    if (value !== undefined && gen === (this.generation.get(name) ?? 0)) {
      this.cache.set(name, { value, until: this.clock.now() + this.ttlMs });
    }
    return value;
  }

  async put(name: string, value: string): Promise<void> {
    // Dropped before and after: a read racing the write must neither serve nor keep the old value.
    this.invalidate(name);
    try {
      await this.write(this.id(name), value);
    } finally {
      this.invalidate(name);
    }
  }

  async delete(name: string): Promise<void> {
    this.invalidate(name);
    try {
      await this.client.send(new DeleteSecretCommand({ SecretId: this.id(name), ForceDeleteWithoutRecovery: true }));
    } catch (e) {
      if (!isSecretGone(e)) throw e;
    } finally {
      this.invalidate(name);
    }
  }

  /** PutSecretValue; CreateSecret when there is no such secret; RestoreSecret first when it is being deleted. */
  private async write(SecretId: string, value: string): Promise<void> {
    try {
      await this.client.send(new PutSecretValueCommand({ SecretId, SecretString: value }));
      return;
    } catch (e) {
      if (!isSecretGone(e)) throw e;
      if ((e as Error).name === 'InvalidRequestException') {
        await this.client.send(new RestoreSecretCommand({ SecretId }));
        await this.client.send(new PutSecretValueCommand({ SecretId, SecretString: value }));
        return;
      }
    }
    try {
      await this.client.send(new CreateSecretCommand({ Name: SecretId, SecretString: value }));
    } catch (e) {
      // Another writer created it between our two calls: write over it.
      if (!(e instanceof Error && e.name === 'ResourceExistsException')) throw e;
      await this.client.send(new PutSecretValueCommand({ SecretId, SecretString: value }));
    }
  }

  private id(name: string): string {
    return `${this.prefix}${name}`;
  }

  private invalidate(name: string): void {
    this.cache.delete(name);
    this.generation.set(name, (this.generation.get(name) ?? 0) + 1);
  }
}
