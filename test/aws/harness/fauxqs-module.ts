import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * One of fauxqs's own SQS modules (`dist/sqs/<file>`). fauxqs exports only its entry point; it
 * loads these itself from the same real path, so what is imported here is the very module (and
 * prototype) it uses.
 */
export async function fauxqsSqsModule<T>(file: string): Promise<T> {
  const dist = join(realpathSync(join(process.cwd(), 'node_modules', 'fauxqs')), 'dist', 'sqs');
  return (await import(pathToFileURL(join(dist, file)).href)) as T;
}
