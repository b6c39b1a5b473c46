import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EncryptedSecretStore } from '../../shared/adapters/local/encrypted-secret-store';

let dir: string;
const plaintext = 'ghu_S3cretTokenValue_that_must_not_leak_1234567890';

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('encrypted local secret store', () => {
  it('round-trips values, overwrites, deletes, and answers undefined for unknown names', async () => {
    const store = EncryptedSecretStore.open({ dir });
    await store.put('connections/c1/token', plaintext);
    expect(await store.get('connections/c1/token')).toBe(plaintext);
    await store.put('connections/c1/token', 'second');
    expect(await store.get('connections/c1/token')).toBe('second');
    await store.delete('connections/c1/token');
    expect(await store.get('connections/c1/token')).toBeUndefined();
    await store.delete('never-there');
    expect(await store.get('never-there')).toBeUndefined();
  });

  it('keeps only ciphertext at rest, with a fresh IV on every write', async () => {
    const store = EncryptedSecretStore.open({ dir });
    await store.put('a', plaintext);
    const first = readFileSync(join(dir, 'secrets.json'));
    expect(first.includes(plaintext)).toBe(false);
    expect(first.includes(Buffer.from(plaintext).toString('base64'))).toBe(false);
    await store.put('a', plaintext);
    const second = readFileSync(join(dir, 'secrets.json'), 'utf8');
    expect(JSON.parse(second).secrets.a.iv).not.toBe(JSON.parse(first.toString('utf8')).secrets.a.iv);
    expect(readdirSync(dir).sort()).toEqual(['secret.key', 'secrets.json']);
  });

  it('creates the key and the store file with mode 0600', async () => {
    const store = EncryptedSecretStore.open({ dir });
    await store.put('a', 'b');
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'secret.key'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('survives a reopen with the same key', async () => {
    await EncryptedSecretStore.open({ dir }).put('endpoints/e1/secret', plaintext);
    expect(await EncryptedSecretStore.open({ dir }).get('endpoints/e1/secret')).toBe(plaintext);
  });

  it('refuses to open with a wrong key, with a clear error', async () => {
    await EncryptedSecretStore.open({ dir }).put('a', plaintext);
    writeFileSync(join(dir, 'secret.key'), randomBytes(32).toString('hex'));
    expect(() => EncryptedSecretStore.open({ dir })).toThrow(/cannot be decrypted with the key/);
  });

  it('refuses to open when the key is missing instead of generating one that cannot read the secrets', async () => {
    await EncryptedSecretStore.open({ dir }).put('a', plaintext);
    rmSync(join(dir, 'secret.key'));
    expect(() => EncryptedSecretStore.open({ dir })).toThrow(/secret.key is missing/);
  });

  it('fails a read with a clear error when a sealed value was moved to another name', async () => {
    const store = EncryptedSecretStore.open({ dir });
    await store.put('a', plaintext);
    await store.put('b', 'other');
    const file = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'));
    file.secrets.b = file.secrets.a;
    writeFileSync(join(dir, 'secrets.json'), JSON.stringify(file));
    const reopened = EncryptedSecretStore.open({ dir });
    await expect(reopened.get('b')).rejects.toThrow(/fails authentication/);
    expect(await reopened.get('a')).toBe(plaintext);
  });
});

describe("the local store's token sealer (installation tokens kept in the table)", () => {
  it('opens what it sealed, after a reopen too, and its text holds no plaintext', async () => {
    const sealed = await EncryptedSecretStore.open({ dir }).tokenSealer().seal(plaintext, 'APPTOKEN#31');
    expect(sealed).not.toContain(plaintext);
    expect(sealed).not.toContain(Buffer.from(plaintext).toString('base64'));
    expect(await EncryptedSecretStore.open({ dir }).tokenSealer().open(sealed, 'APPTOKEN#31')).toBe(plaintext);
  });

  it('does not open a value under another row, nor an altered one, nor one of another key: undefined, not an error', async () => {
    const sealer = EncryptedSecretStore.open({ dir }).tokenSealer();
    const sealed = await sealer.seal(plaintext, 'APPTOKEN#31');
    expect(await sealer.open(sealed, 'APPTOKEN#32')).toBeUndefined();
    const [v, iv, tag, data = ''] = sealed.split('.');
    const flipped = Buffer.from(data, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(await sealer.open([v, iv, tag, flipped.toString('base64')].join('.'), 'APPTOKEN#31')).toBeUndefined();
    expect(await sealer.open('not sealed', 'APPTOKEN#31')).toBeUndefined();
    const otherDir = mkdtempSync(join(tmpdir(), 'secrets-other-'));
    const other = EncryptedSecretStore.open({ dir: otherDir }).tokenSealer();
    expect(await other.open(sealed, 'APPTOKEN#31')).toBeUndefined();
    rmSync(otherDir, { recursive: true, force: true });
  });
});
