import { present } from '../../../shared/domain/present';
import type { DeliveryBound } from '../delivery-bound';
import type { OAuthServerState, SimulatedOAuthServer } from '../simulated-oauth';
import { snareOAuth, snareOAuthEnvironment } from './sandbox-oauth';
import { startSimulatedContentSnare, type ScriptedAnswer, type SimulatedContentSnare } from './simulated-contentsnare';
import type { SnareSnapshot } from './simulated-contentsnare-api';
import { holdSnareExampleRecords } from './snare-example-records';

export interface SandboxContentSnareOptions {
  /** The demo connection's token and the demo account (the admin of the seeded team). */
  token: string;
  account: string;
  /** The records an earlier start kept, and its OAuth client and tokens. */
  restore?: SnareSnapshot;
  oauth?: OAuthServerState;
  /** After every write that succeeded: an answer refuses it (the sandbox could not keep it). */
  afterWrite: () => ScriptedAnswer | undefined;
  bound: DeliveryBound;
}

/** The sandbox's collection service, assembled: the partner API, its OAuth pages, and its deliveries. */
export interface SandboxContentSnare {
  service: SimulatedContentSnare;
  oauth: SimulatedOAuthServer;
  /** The settings that point the runtime at this service (its OAuth client unless the environment names its own). */
  environment(env: Record<string, string | undefined>): Record<string, string>;
}

/**
 * The sandbox's simulated collection service (`npm run dev`): the partner API holding the
 * records the example deliveries name, its OAuth pages approved as the demo account (the tokens
 * they issue are taken by the API), and its webhooks sent within `bound`.
 */
export async function startSandboxContentSnare(o: SandboxContentSnareOptions): Promise<SandboxContentSnare> {
  let started: SimulatedContentSnare | undefined;
  const oauth = snareOAuth(
    o.account,
    (token, replaced) => {
      const tokens = present(started, 'the simulated Content Snare').tokens;
      if (replaced) tokens.delete(replaced);
      tokens.add(token);
    },
    o.oauth,
  );
  const service = await startSimulatedContentSnare({
    tokens: [o.token, ...oauth.tokens.keys()],
    record: false,
    me: { full_name: o.account },
    ...(o.restore ? { restore: o.restore } : {}),
    afterWrite: o.afterWrite,
    before: (req) => oauth.handle(req),
  });
  started = service;
  holdSnareExampleRecords(service);
  const deliver = service.webhooks.deliver;
  service.webhooks.deliver = async (url, body) => (o.bound.take() ? deliver(url, body) : 0);
  return {
    service,
    oauth,
    environment: (env) => ({ CONTENTSNARE_API_URL: service.url, ...snareOAuthEnvironment(oauth, service.url, env) }),
  };
}
