import { createHmac, timingSafeEqual } from 'node:crypto';
import { startFakeHttp, type FakeResponse, type FakeServer, type RecordedRequest } from './fake-http';

/**
 * A fake agent runtime on 127.0.0.1 that records every trigger event POSTed to it.
 * `answers` are used in order (then 200), so a test can make it fail a few times.
 */
export class FakeAgentRuntime {
  readonly answers: FakeResponse[] = [];

  private constructor(readonly server: FakeServer) {}

  static async start(): Promise<FakeAgentRuntime> {
    let self: FakeAgentRuntime | undefined;
    const server = await startFakeHttp(async () => self!.answers.shift() ?? { status: 200, body: { ok: true } });
    self = new FakeAgentRuntime(server);
    return self;
  }

  get url(): string {
    return `${this.server.url}/trigger-events`;
  }

  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  /** Events the runtime received (parsed bodies), in arrival order. */
  events(): Array<Record<string, unknown>> {
    return this.server.requests.map((r) => JSON.parse(r.body) as Record<string, unknown>);
  }

  /** Whether a request's `X-Signature-256` is the HMAC of its exact body with `secret`. */
  static signatureValid(req: RecordedRequest, secret: string): boolean {
    const header = String(req.headers['x-signature-256'] ?? '');
    const want = `sha256=${createHmac('sha256', secret).update(req.body).digest('hex')}`;
    return header.length === want.length && timingSafeEqual(Buffer.from(header), Buffer.from(want));
  }

  /**
   * Whether a request's timestamped signature holds, as an agent runtime checks it to refuse
   * replays (docs/triggers.md, "What the agent runtime receives"): `X-Signature-256-Timestamped` is `sha256=` + the HMAC
   * of `<X-Signature-Timestamp>.<body>`, and the timestamp is within `toleranceSeconds` of `nowMs`.
   */
  static timestampedSignatureValid(req: RecordedRequest, secret: string, nowMs: number, toleranceSeconds = 300): boolean {
    const timestamp = String(req.headers['x-signature-timestamp'] ?? '');
    if (!/^\d+$/.test(timestamp)) return false;
    if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) return false;
    const header = String(req.headers['x-signature-256-timestamped'] ?? '');
    const want = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${req.body}`).digest('hex')}`;
    return header.length === want.length && timingSafeEqual(Buffer.from(header), Buffer.from(want));
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
