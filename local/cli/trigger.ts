import { pathToFileURL } from 'node:url';
import { parseOverride, type Override } from '../../shared/domain/example-overrides';
import type { SendExampleResult } from '../admin/send-example';
import { didYouMean } from '../../shared/domain/did-you-mean';
import { present } from '../../shared/domain/present';
import { triggerCatalog } from '../../shared/wiring/providers';
import { resolveTriggerId } from '../../shared/domain/trigger-id';
import { triggerIds } from '../../shared/domain/triggers';
import { callAdmin, errorText, localUrl, platformKey, type Env } from './local-admin-client';
import { waitForEvent } from './wait-for-event';

export interface TriggerDeps {
  env: Env;
  out: (line: string) => void;
  fetch?: typeof fetch;
  /** Pause between `--wait` polls (tests shorten it). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const usage = `usage: npm run trigger -- <trigger id> [--set path=value ...] [--wait [--timeout <s>]] [--subscription <id>] [--url http://127.0.0.1:3000]
  sends the documented example payload of the trigger, signed with the subscribed endpoint's
  secret, through the running local runtime's webhook intake (start it first: npm run dev);
  a subscription of a GitHub App connection gets an App delivery (its installation named, signed
  with GITHUB_APP_WEBHOOK_SECRET) to POST /webhooks/github/app
  --set issue.title="Hello"   changes the example before it is sent (value: JSON, else text); repeatable
  --wait                      waits until the event's history says delivered (or logged), exit 1 when it is
                              dead-lettered or on timeout (30 s); works with any AGENT_RUNTIME_URL
  trigger ids: ${triggerIds.join(', ')}`;

interface Args {
  trigger: string;
  subscriptionId?: string;
  url?: string;
  overrides: Override[];
  wait: boolean;
  timeoutSeconds: number;
}

function parseArgs(argv: readonly string[]): Args | string {
  let trigger: string | undefined;
  let subscriptionId: string | undefined;
  let url: string | undefined;
  let wait = false;
  let timeoutSeconds = 30;
  const overrides: Override[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = present(argv[i], `argument ${i + 1}`);
    if (a === '--subscription') subscriptionId = argv[++i];
    else if (a === '--url') url = argv[++i];
    else if (a === '--wait') wait = true;
    else if (a === '--timeout') {
      timeoutSeconds = Number(argv[++i]);
      if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) return `--timeout: expected seconds, got ${argv[i]}\n${usage}`;
    } else if (a === '--set' || a.startsWith('--set=')) {
      const text = a === '--set' ? argv[++i] : a.slice('--set='.length);
      try {
        overrides.push(parseOverride(text ?? ''));
      } catch (e) {
        return (e as Error).message;
      }
    } else if (a.startsWith('--') || trigger !== undefined) return `unknown argument ${a}\n${usage}`;
    else trigger = a;
  }
  if (!trigger) return usage;
  // `new_issue` is accepted for `github.new_issue`, as POST /subscriptions takes it.
  const id = resolveTriggerId(trigger);
  if (!id) return `unknown trigger ${trigger}.${didYouMean(trigger, triggerIds)}\n${usage}`;
  return { trigger: id, subscriptionId, url, overrides, wait, timeoutSeconds };
}

function howToSubscribe(base: string, trigger: string): string[] {
  const needsOrg = triggerCatalog[trigger as keyof typeof triggerCatalog]?.source({ kind: 'repository', repository: 'o/r' }) === undefined;
  const target =
    trigger === 'github.new_gist' || trigger.startsWith('contentsnare.')
      ? ''
      : needsOrg
        ? ', "organization": "<org>"'
        : ', "repository": "<owner>/<name>"';
  return [
    `No subscription to ${trigger} yet. Create one (with a connection from POST /connections), then run this again:`,
    `  curl -s -X POST ${base}/subscriptions -H "Authorization: Bearer $PLATFORM_API_KEY" -H 'content-type: application/json' \\`,
    `    -d '{"connectionId": "<connection id>", "trigger": "${trigger}", "agentId": "my-agent"${target}}'`,
  ];
}

function report(result: SendExampleResult, out: (l: string) => void): void {
  if (result.kind === 'url-token') {
    out(
      `Sent a \`${result.event}\` delivery to subscription ${result.subscriptionId}, as the collection service posts it (unsigned; the URL's token is the check):`,
    );
    out(`  POST ${result.url}`);
    out(`The intake answered ${result.intake.status}: ${JSON.stringify(result.intake.body)}`);
    if ((result.intake.body as { accepted?: number })?.accepted === 0)
      out(
        `Nothing was dispatched: the intake read ${result.subjectId} back at the service and it did not bear the delivery out (or it was announced already). Name a record of your account with --set id=<id>.`,
      );
    return;
  }
  if (result.kind === 'enqueued') {
    out(`Subscription ${result.subscriptionId}: ${result.reason}.`);
    out(`Enqueued ${result.eventIds.length} trigger event(s): ${result.eventIds.join(', ')}`);
  } else {
    const app = result.endpointId === 'app';
    out(
      `Sent a signed \`${result.event}\` delivery to subscription ${result.subscriptionId} (${app ? "the GitHub App's webhook" : `endpoint ${result.endpointId}`}):`,
    );
    out(`  POST ${result.url}`);
    out(`  X-GitHub-Event: ${result.event}`);
    out(`  X-GitHub-Delivery: ${result.deliveryId}`);
    out(
      `  X-Hub-Signature-256: sha256=<HMAC-SHA256 of the ${result.bytes} body bytes with ${app ? "the App's webhook secret" : "the endpoint's secret"}>`,
    );
    out(`The intake answered ${result.intake.status}: ${JSON.stringify(result.intake.body)}`);
    const accepted = (result.intake.body as { accepted?: number })?.accepted;
    if (result.intake.status >= 300) return;
    if (accepted === 0) {
      out("It mapped to no event for this subscription (check the subscription's filters and the connection's repositories).");
      return;
    }
  }
  out(
    'The event goes to AGENT_RUNTIME_URL within a second or two; without AGENT_RUNTIME_URL the runtime logs it as a line "trigger event ... (AGENT_RUNTIME_URL is not set, so it is only logged)".',
  );
}

/** `npm run trigger`: asks the running local runtime to send an example delivery. Returns the exit code. */
export async function runTriggerCommand(argv: readonly string[], deps: TriggerDeps): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    deps.out(args);
    return 2;
  }
  const base = localUrl(deps.env, args.url);
  const key = platformKey(deps.env);
  const request = {
    trigger: args.trigger,
    ...(args.subscriptionId ? { subscriptionId: args.subscriptionId } : {}),
    ...(args.overrides.length > 0 ? { overrides: args.overrides } : {}),
  };
  const answer = await callAdmin(base, key, 'POST', '/admin/trigger', request, deps.fetch);
  if (!answer.reachable) {
    deps.out(
      `No local runtime at ${base} (${answer.reason}). Start it with \`npm run dev\` (or \`npm start\`; pass --url / set PORT), then run this again.`,
    );
    return 1;
  }
  if (answer.status === 404 && /No subscription to/.test(errorText(answer.body))) {
    for (const line of howToSubscribe(base, args.trigger)) deps.out(line);
    return 1;
  }
  if (answer.status !== 200) {
    deps.out(`The local runtime answered ${answer.status}: ${errorText(answer.body)}`);
    if (answer.status === 401) deps.out("Set PLATFORM_API_KEY, or DATA_DIR to the runtime's data dir (its key is in local-secrets.json).");
    return 1;
  }
  const result = answer.body as SendExampleResult;
  report(result, deps.out);
  if (!args.wait) return 0;
  if ('intake' in result && (result.intake.status >= 300 || (result.intake.body as { accepted?: number })?.accepted === 0)) return 1;
  return waitForEvent(base, key, args.trigger, result, args.timeoutSeconds, deps);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runTriggerCommand(process.argv.slice(2), { env: process.env, out: (l) => process.stdout.write(`${l}\n`) }).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`trigger: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
