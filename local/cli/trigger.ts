import { pathToFileURL } from 'node:url';
import type { SendExampleResult } from '../admin/send-example';
import { triggerCatalog } from '../../shared/domain/trigger-catalog';
import { isTriggerId, triggerIds } from '../../shared/domain/triggers';
import { callAdmin, errorText, localUrl, platformKey, type Env } from './local-admin-client';

export interface TriggerDeps {
  env: Env;
  out: (line: string) => void;
  fetch?: typeof fetch;
}

const usage = `usage: npm run trigger -- <trigger id> [--subscription <id>] [--url http://127.0.0.1:3000]
  sends the documented example payload of the trigger, signed with the subscribed endpoint's
  secret, through the running local runtime's webhook intake (start it first: npm start)
  trigger ids: ${triggerIds.join(', ')}`;

function parseArgs(argv: readonly string[]): { trigger: string; subscriptionId?: string; url?: string } | string {
  let trigger: string | undefined;
  let subscriptionId: string | undefined;
  let url: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--subscription') subscriptionId = argv[++i];
    else if (a === '--url') url = argv[++i];
    else if (a.startsWith('--') || trigger !== undefined) return `unknown argument ${a}\n${usage}`;
    else trigger = a;
  }
  if (!trigger) return usage;
  // `new_issue` is accepted for `github.new_issue`.
  const id = trigger.includes('.') ? trigger : `github.${trigger}`;
  if (!isTriggerId(id)) return `unknown trigger ${trigger}\n${usage}`;
  return { trigger: id, subscriptionId, url };
}

function howToSubscribe(base: string, trigger: string): string[] {
  const needsOrg = triggerCatalog[trigger as keyof typeof triggerCatalog]?.source({ kind: 'repository', repository: 'o/r' }) === undefined;
  const target = trigger === 'github.new_gist' ? '' : needsOrg ? ', "organization": "<org>"' : ', "repository": "<owner>/<name>"';
  return [
    `No subscription to ${trigger} yet. Create one (with a connection from POST /connections), then run this again:`,
    `  curl -s -X POST ${base}/subscriptions -H "Authorization: Bearer $PLATFORM_API_KEY" -H 'content-type: application/json' \\`,
    `    -d '{"connectionId": "<connection id>", "trigger": "${trigger}", "agentId": "my-agent"${target}}'`,
  ];
}

function report(result: SendExampleResult, out: (l: string) => void): void {
  if (result.kind === 'enqueued') {
    out(`Subscription ${result.subscriptionId}: ${result.reason}.`);
    out(`Enqueued ${result.eventIds.length} trigger event(s): ${result.eventIds.join(', ')}`);
  } else {
    out(`Sent a signed \`${result.event}\` delivery to subscription ${result.subscriptionId} (endpoint ${result.endpointId}):`);
    out(`  POST ${result.url}`);
    out(`  X-GitHub-Event: ${result.event}`);
    out(`  X-GitHub-Delivery: ${result.deliveryId}`);
    out(`  X-Hub-Signature-256: sha256=<HMAC-SHA256 of the ${result.bytes} body bytes with the endpoint's secret>`);
    out(`The intake answered ${result.intake.status}: ${JSON.stringify(result.intake.body)}`);
    const accepted = (result.intake.body as { accepted?: number })?.accepted;
    if (result.intake.status >= 300) return;
    if (accepted === 0) {
      out('It mapped to no event for this subscription (check the subscription\'s filters and the connection\'s repositories).');
      return;
    }
  }
  out('The event goes to AGENT_RUNTIME_URL within a second or two; without AGENT_RUNTIME_URL the runtime logs it as a line "trigger event ... (AGENT_RUNTIME_URL is not set, so it is only logged)".');
}

/** `npm run trigger`: asks the running local runtime to send an example delivery. Returns the exit code. */
export async function runTriggerCommand(argv: readonly string[], deps: TriggerDeps): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    deps.out(args);
    return 2;
  }
  const base = localUrl(deps.env, args.url);
  const answer = await callAdmin(base, platformKey(deps.env), 'POST', '/admin/trigger', { trigger: args.trigger, ...(args.subscriptionId ? { subscriptionId: args.subscriptionId } : {}) }, deps.fetch);
  if (!answer.reachable) {
    deps.out(`No local runtime at ${base} (${answer.reason}). Start it with \`npm start\` (or pass --url / set PORT), then run this again.`);
    return 1;
  }
  if (answer.status === 404 && /No subscription to/.test(errorText(answer.body))) {
    for (const line of howToSubscribe(base, args.trigger)) deps.out(line);
    return 1;
  }
  if (answer.status !== 200) {
    deps.out(`The local runtime answered ${answer.status}: ${errorText(answer.body)}`);
    if (answer.status === 401) deps.out('Set PLATFORM_API_KEY, or DATA_DIR to the runtime\'s data dir (its key is in local-secrets.json).');
    return 1;
  }
  report(answer.body as SendExampleResult, deps.out);
  return 0;
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
