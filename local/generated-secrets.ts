import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

const fileSchema = z.object({ platformApiKey: z.string().min(32), dispatchSigningSecret: z.string().min(32) });
export type GeneratedSecrets = z.infer<typeof fileSchema>;

export const generatedSecretsFile = (dataDir: string) => join(dataDir, 'local-secrets.json');

/**
 * The local runtime's platform key and signing secret: taken from the environment when set,
 * otherwise generated at first start and kept (0600) in the data dir, so a restart keeps them.
 */
export function loadOrCreateGeneratedSecrets(dataDir: string): { secrets: GeneratedSecrets; created: boolean } {
  mkdirSync(dataDir, { recursive: true });
  const file = generatedSecretsFile(dataDir);
  if (existsSync(file)) {
    return { secrets: fileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))), created: false };
  }
  const secrets: GeneratedSecrets = {
    platformApiKey: `pk_${randomBytes(24).toString('base64url')}`,
    dispatchSigningSecret: randomBytes(32).toString('base64url'),
  };
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return { secrets, created: true };
}
