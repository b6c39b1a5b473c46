import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { AppError } from '../../domain/errors';
import type { SecretStore } from '../../ports';
import type { TokenSealer } from '../../ports/token-sealer';

const sealed = z.object({ iv: z.string(), tag: z.string(), data: z.string() });
type Sealed = z.infer<typeof sealed>;
const fileSchema = z.object({ version: z.literal(1), check: sealed, secrets: z.record(z.string(), sealed) });

/** Encrypted under the key at creation, so a wrong key is caught at open, before any read. */
const checkPlaintext = 'agent-integrations secret store';
const checkAad = '\u0000check';

export interface EncryptedSecretStoreOptions {
  dir: string;
  /** Defaults to `<dir>/secret.key`. */
  keyPath?: string;
  /** Defaults to `<dir>/secrets.json`. */
  fileName?: string;
}

/**
 * The local SecretStore: one JSON file whose values are each sealed with AES-256-GCM
 * (random 96-bit IV per write, 128-bit auth tag, the secret's name as associated data so a
 * sealed value cannot be moved to another name). The 256-bit key is generated once at
 * `<dir>/secret.key`; both files are 0600. Writes replace the file atomically (temp +
 * rename). A wrong key fails with a clear error, never garbage. One process owns the file.
 */
export class EncryptedSecretStore implements SecretStore {
  private constructor(
    private readonly path: string,
    private readonly key: Buffer,
    private readonly check: Sealed,
    private readonly secrets: Map<string, Sealed>,
  ) {}

  static open(options: EncryptedSecretStoreOptions): EncryptedSecretStore {
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    const path = join(options.dir, options.fileName ?? 'secrets.json');
    const keyPath = options.keyPath ?? join(options.dir, 'secret.key');
    const hasFile = existsSync(path);
    const key = loadOrCreateKey(keyPath, hasFile);
    if (!hasFile) {
      const store = new EncryptedSecretStore(path, key, seal(key, checkAad, checkPlaintext), new Map());
      store.save();
      return store;
    }
    const parsed = fileSchema.safeParse(parseJson(readFileSync(path, 'utf8')));
    if (!parsed.success) throw new AppError('internal', `Local secret store ${path} is not in the expected format`);
    if (unsealOrUndefined(key, checkAad, parsed.data.check) !== checkPlaintext) {
      throw new AppError(
        'internal',
        `Local secret store ${path} cannot be decrypted with the key in ${keyPath}: the key was replaced or the file was written with another key`,
      );
    }
    return new EncryptedSecretStore(path, key, parsed.data.check, new Map(Object.entries(parsed.data.secrets)));
  }

  async get(name: string): Promise<string | undefined> {
    const value = this.secrets.get(name);
    if (!value) return undefined;
    const plain = unsealOrUndefined(this.key, name, value);
    if (plain === undefined)
      throw new AppError('internal', `Local secret "${name}" in ${this.path} fails authentication: wrong key or tampered file`);
    return plain;
  }

  async put(name: string, value: string): Promise<void> {
    this.secrets.set(name, seal(this.key, name, value));
    this.save();
  }

  async delete(name: string): Promise<void> {
    if (this.secrets.delete(name)) this.save();
  }

  /**
   * Seals values kept in the table (installation tokens) under this store's key, so the local
   * runtime needs no other key file. The associated data is the row's key in a namespace of its
   * own (a leading NUL, as the check value's), so a sealed row never opens as a secret, nor the reverse.
   */
  tokenSealer(): TokenSealer {
    const aad = (context: string) => `\u0000row\u0000${context}`;
    return {
      seal: async (plaintext, context) => packSealed(seal(this.key, aad(context), plaintext)),
      open: async (text, context) => {
        const s = unpackSealed(text);
        return s ? unsealOrUndefined(this.key, aad(context), s) : undefined;
      },
    };
  }

  private save(): void {
    const body = JSON.stringify({ version: 1, check: this.check, secrets: Object.fromEntries(this.secrets) });
    writeAtomic(this.path, body);
  }
}

function loadOrCreateKey(keyPath: string, storeExists: boolean): Buffer {
  if (existsSync(keyPath)) {
    if ((statSync(keyPath).mode & 0o077) !== 0) chmodSync(keyPath, 0o600);
    const key = Buffer.from(readFileSync(keyPath, 'utf8').trim(), 'hex');
    if (key.length !== 32) throw new AppError('internal', `Secret key ${keyPath} is not 64 hex characters (a 256-bit key)`);
    return key;
  }
  // A new key could never read the existing secrets: refuse rather than orphan them.
  if (storeExists) throw new AppError('internal', `Secret key ${keyPath} is missing, so the existing local secret store cannot be read`);
  const key = randomBytes(32);
  writeAtomic(keyPath, `${key.toString('hex')}\n`);
  return key;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function writeAtomic(path: string, body: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, body, { mode: 0o600 });
  chmodSync(tmp, 0o600); // the mode above is masked by umask; make sure
  renameSync(tmp, path);
}

function seal(key: Buffer, aad: string, plaintext: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** One attribute's text: `v1.<iv>.<tag>.<data>`, each base64. */
function packSealed(s: Sealed): string {
  return `v1.${s.iv}.${s.tag}.${s.data}`;
}

function unpackSealed(text: string): Sealed | undefined {
  const [version, iv, tag, data] = text.split('.');
  return version === 'v1' && iv && tag && data !== undefined ? { iv, tag, data } : undefined;
}

function unsealOrUndefined(key: Buffer, aad: string, s: Sealed): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(s.iv, 'base64'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(s.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(s.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
