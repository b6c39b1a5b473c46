/**
 * The request an AWS SDK v3 client would put on the wire, captured before it leaves the process:
 * the client's own serializer and signer run, its HTTP handler only records and refuses. Lets
 * classifier tests read what the SDK really sends, with no server and no socket.
 */
import type { HttpRequest } from '@smithy/types';
import type { RawRequest } from './classify-request';

class Captured extends Error {
  constructor() {
    super('captured: not sent');
    this.name = 'Captured';
  }
}

export const testCredentials = { accessKeyId: 'AKIDCAPTURE', secretAccessKey: 'capture-secret' };

function toRaw(req: HttpRequest): RawRequest {
  const query = Object.entries(req.query ?? {}).flatMap(([k, v]) =>
    v === null || v === undefined
      ? [encodeURIComponent(k)]
      : (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(String(x))}`),
  );
  const body = req.body as unknown;
  return {
    method: req.method,
    path: req.path + (query.length ? `?${query.join('&')}` : ''),
    headers: { ...req.headers, host: req.headers.host ?? `${req.hostname}${req.port ? `:${req.port}` : ''}` },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : body === undefined ? '' : String(body),
  };
}

/** Client options that make every `send` record its request and fail with `Captured`. */
export function capturingClientConfig(endpoint: string, extra: Record<string, unknown> = {}) {
  const sent: RawRequest[] = [];
  const requestHandler = {
    async handle(request: HttpRequest): Promise<never> {
      sent.push(toRaw(request));
      throw new Captured();
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
  };
  return { sent, config: { region: 'us-east-1', endpoint, credentials: testCredentials, maxAttempts: 1, requestHandler, ...extra } };
}

/** Runs one SDK call and returns the one request it produced. */
export async function captureOne(sent: RawRequest[], call: () => Promise<unknown>): Promise<RawRequest> {
  const before = sent.length;
  await call().then(
    () => {
      throw new Error('the SDK call resolved: nothing was captured');
    },
    (e: unknown) => {
      if (!(e instanceof Error && e.name === 'Captured')) throw e;
    },
  );
  const got = sent.slice(before);
  if (got.length !== 1) throw new Error(`expected one request, captured ${got.length}`);
  return got[0] as RawRequest;
}
