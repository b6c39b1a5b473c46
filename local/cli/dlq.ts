import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatDeadLetters, summarizeDeadLetters, type DeadLetterSummary } from '../admin/dead-letters';
import { FileBlobStore } from '../../shared/adapters/local/file-blob-store';
import { openLocalQueues } from '../../shared/adapters/local/local-queues';
import { systemClock, type BlobStore, type DeadLetterQueue } from '../../shared/ports';
import { callAdmin, dataDir, errorText, localUrl, platformKey, type Env } from './local-admin-client';

export interface DlqDeps {
  env: Env;
  out: (line: string) => void;
  fetch?: typeof fetch;
  /** The AWS backend (SQS); built from DLQ_URL / QUEUE_URL when not given. */
  aws?: () => Promise<{ deadLetters: DeadLetterQueue; blobs?: Pick<BlobStore, 'get'> }>;
}

interface Args {
  command: 'list' | 'redrive';
  ids?: string[];
  aws: boolean;
  url?: string;
  max: number;
}

const usage = `usage: npm run dlq -- list|redrive [--id <messageId>]... [--max N] [--aws] [--url http://127.0.0.1:3000]
  list      show the dead letters (message id, receive count, trigger, subscription, event id, first sent)
  redrive   move them back to the dispatch queue (all, or only the --id ones)
  --aws     use SQS (DLQ_URL and QUEUE_URL; the default when both are set)`;

function parseArgs(argv: readonly string[]): Args | string {
  const [command, ...rest] = argv;
  if (command !== 'list' && command !== 'redrive') return usage;
  const args: Args = { command, aws: false, max: 100 };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const value = () => rest[++i] ?? '';
    if (a === '--aws') args.aws = true;
    else if (a === '--id') {
      args.ids ??= [];
      args.ids.push(...value().split(',').filter(Boolean));
    } else if (a === '--url') args.url = value();
    else if (a === '--max') args.max = Math.max(1, Number(value()) || 100);
    else return `unknown argument ${a}\n${usage}`;
  }
  return args;
}

async function awsBackend(env: Env): Promise<{ deadLetters: DeadLetterQueue; blobs?: Pick<BlobStore, 'get'> }> {
  if (!env.DLQ_URL || !env.QUEUE_URL)
    throw new Error('--aws needs DLQ_URL and QUEUE_URL (the stack outputs DeadLetterQueueUrl and QueueUrl)');
  const { SqsDeadLetterQueue } = await import('../../shared/adapters/aws/sqs-dead-letter-queue');
  const { createSqsClient } = await import('../../shared/adapters/aws/sqs-queue');
  const { S3BlobStore, createS3Client } = await import('../../shared/adapters/aws/s3-blob-store');
  return {
    deadLetters: new SqsDeadLetterQueue(createSqsClient(), { dlqUrl: env.DLQ_URL, sourceQueueUrl: env.QUEUE_URL }),
    blobs: env.BLOB_BUCKET ? new S3BlobStore(createS3Client(), env.BLOB_BUCKET) : undefined,
  };
}

async function runOn(
  args: Args,
  deadLetters: DeadLetterQueue,
  blobs: Pick<BlobStore, 'get'> | undefined,
  out: (l: string) => void,
): Promise<void> {
  if (args.command === 'list') {
    for (const line of formatDeadLetters(await summarizeDeadLetters(await deadLetters.list(args.max), blobs))) out(line);
    return;
  }
  const moved = await deadLetters.redrive(args.ids);
  out(`Redrove ${moved} message${moved === 1 ? '' : 's'} to the dispatch queue.`);
}

/**
 * `npm run dlq`: on AWS (SQS), on the running local runtime (its admin routes: the
 * runtime owns the queue files while it runs), or, when no runtime answers, on the local
 * queue files directly. Returns the exit code.
 */
export async function runDlqCommand(argv: readonly string[], deps: DlqDeps): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    deps.out(args);
    return 2;
  }
  const { env, out } = deps;
  if (args.aws || (env.DLQ_URL && env.QUEUE_URL)) {
    const { deadLetters, blobs } = await (deps.aws ?? (() => awsBackend(env)))();
    out(`Dead-letter queue ${env.DLQ_URL ?? '(AWS)'}`);
    await runOn(args, deadLetters, blobs, out);
    return 0;
  }

  const base = localUrl(env, args.url);
  const key = platformKey(env);
  const answer =
    args.command === 'list'
      ? await callAdmin(base, key, 'GET', `/admin/dlq?max=${args.max}`, undefined, deps.fetch)
      : await callAdmin(base, key, 'POST', '/admin/dlq/redrive', args.ids ? { ids: args.ids } : {}, deps.fetch);
  if (answer.reachable) {
    if (answer.status !== 200) {
      out(`The local runtime at ${base} answered ${answer.status}: ${errorText(answer.body)}`);
      if (answer.status === 401) out("Set PLATFORM_API_KEY, or DATA_DIR to the runtime's data dir (its key is in local-secrets.json).");
      return 1;
    }
    out(`Local runtime at ${base}`);
    if (args.command === 'list')
      for (const line of formatDeadLetters((answer.body as { deadLetters: DeadLetterSummary[] }).deadLetters)) out(line);
    else
      out(
        `Redrove ${(answer.body as { redriven: number }).redriven} message(s) to the dispatch queue; the running runtime delivers them now.`,
      );
    return 0;
  }

  // No runtime: the files are free to open (the runtime owns them only while it runs).
  const dir = dataDir(env);
  if (!existsSync(join(dir, 'queues'))) {
    out(`No local runtime at ${base} (${answer.reason}), and no queue files in ${join(dir, 'queues')}: set DATA_DIR, LOCAL_URL or --url.`);
    return 1;
  }
  out(`No local runtime at ${base} (${answer.reason}); reading the queue files in ${join(dir, 'queues')}`);
  const queues = openLocalQueues({ dir: join(dir, 'queues'), name: 'dispatch', clock: systemClock });
  try {
    await runOn(args, queues.deadLetters, new FileBlobStore(join(dir, 'blobs')), out);
    if (args.command === 'redrive') out('They are delivered when the runtime next starts (npm start).');
  } finally {
    queues.close();
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runDlqCommand(process.argv.slice(2), { env: process.env, out: (l) => process.stdout.write(`${l}\n`) }).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`dlq: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
