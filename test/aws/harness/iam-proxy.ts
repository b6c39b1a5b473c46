import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyRequest, type AuthzCheck, type ClassifyContext, type Service } from '../iam/classify-request';
import { authorize } from '../iam/evaluate';
import { dynamoUnits, type RequestUnits } from './capacity-units';
import type { RolePolicies } from '../iam/template-policies';

/** One AWS call a function made, as the proxy saw it and judged it. */
export interface AwsCall {
  /** The function's role (by its logical id), from the SigV4 access key id; `harness` for the suite's own calls. */
  role: string;
  service: string;
  operation: string;
  checks: AuthzCheck[];
  allowed: boolean;
  /** The evaluator's reason (names the role, the action, the resource and any failed condition). */
  reason: string;
  /** Bytes of the request body (SQS bills each 64 KB of a request as one). */
  bytes?: number;
  /** DynamoDB: the request units it used, set once its answer is in (capacity-units.ts). */
  units?: RequestUnits;
}

/** The access key id of the suite's own calls (seeding, inspecting): not judged. */
export const harnessKey = 'harness';

export interface IamProxyOptions {
  /** Where each service's emulator listens. */
  upstreams: Record<Service, string>;
  /** Each role's policies, by the access key id its function signs with (the role's logical id). */
  policies: Map<string, RolePolicies>;
  classify: Omit<ClassifyContext, 'service'>;
  /** Queue URLs as the functions know them (naming this proxy) -> as the SQS emulator knows them. */
  queueUrlPrefix?: { ours: string; emulator: string };
}

export interface IamProxy {
  url: string;
  /** What it enforces: set once the template is resolved (queue URLs name the proxy, so it listens first). */
  configure(o: IamProxyOptions): void;
  calls: AwsCall[];
  /** Calls refused: each one fails the test that made it. */
  denials(): AwsCall[];
  close(): Promise<void>;
}

/**
 * The enforcing front of the emulators. Every SDK client of every function points here
 * (`AWS_ENDPOINT_URL_*`); each request is attributed to a role by its SigV4 credential (the
 * function signs with `AWS_ACCESS_KEY_ID=<role logical id>`), classified into the checks AWS
 * would make (action, resource ARN, condition keys such as `dynamodb:LeadingKeys`) and
 * evaluated against that role's policy from the synthesized template. A denied call is
 * answered as AWS answers it (AccessDeniedException; S3: 403 AccessDenied) and recorded; an
 * allowed one goes on to the emulator of its service. A request that cannot be classified is
 * denied too: nothing reaches an emulator unjudged.
 */
export async function startIamProxy(): Promise<IamProxy> {
  const calls: AwsCall[] = [];
  let options: IamProxyOptions | undefined;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const o = options;
      if (!o) {
        deny(res, 'unknown', 'the proxy is not configured yet');
        return;
      }
      const body = Buffer.concat(chunks);
      const auth = String(req.headers.authorization ?? '');
      const scope = /Credential=([^/]+)\/\d{8}\/[^/]+\/([^/]+)\//.exec(auth);
      const role = scope?.[1] ?? 'anonymous';
      const service = (scope?.[2] ?? '') as Service;
      const upstream = o.upstreams[service];
      if (!upstream) {
        deny(res, 'unknown', `no emulator for service "${scope?.[2] ?? '(unsigned)'}"`);
        return;
      }
      const onward =
        service === 'sqs' && o.queueUrlPrefix
          ? Buffer.from(body.toString('utf8').split(o.queueUrlPrefix.ours).join(o.queueUrlPrefix.emulator), 'utf8')
          : body;
      if (role === harnessKey) {
        forward(upstream, req, onward, res);
        return;
      }
      const classified = classifyRequest(
        { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body },
        { ...o.classify, service },
      );
      if (classified.kind === 'unclassified') {
        const call: AwsCall = {
          role,
          service,
          operation: classified.operation ?? '?',
          checks: [],
          allowed: false,
          reason: `${role}: unclassified ${service} request: ${classified.reason}`,
        };
        calls.push(call);
        deny(res, service, call.reason);
        return;
      }
      const policy = o.policies.get(role);
      const verdict = policy
        ? authorize(policy, classified.checks)
        : { allowed: false, reason: `no role with access key id ${role} in the template` };
      const call: AwsCall = {
        role,
        service,
        operation: classified.operation,
        checks: classified.checks,
        allowed: verdict.allowed,
        reason: verdict.reason,
        bytes: body.length,
      };
      calls.push(call);
      if (!verdict.allowed) {
        deny(res, service, verdict.reason);
        return;
      }
      const tables = o.classify.tables;
      const measure =
        service === 'dynamodb'
          ? (answer: Buffer) => {
              call.units = dynamoUnits(call.operation, body.toString('utf8'), answer.toString('utf8'), tables);
            }
          : undefined;
      forward(upstream, req, onward, res, measure);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    configure: (o) => {
      options = o;
    },
    calls,
    denials: () => calls.filter((c) => !c.allowed),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function forward(upstream: string, req: IncomingMessage, body: Buffer, res: ServerResponse, measure?: (answer: Buffer) => void): void {
  const target = new URL(upstream);
  const headers = { ...req.headers, host: req.headers.host ?? target.host, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  const out = request({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    if (measure) {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => measure(Buffer.concat(chunks)));
    }
    answer.pipe(res);
  });
  out.on('error', (e) => {
    res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`emulator unreachable: ${e.message}`);
  });
  out.end(body);
}

/** AccessDenied as each service's protocol spells it. */
function deny(res: ServerResponse, service: string, message: string): void {
  if (service === 's3') {
    const xml = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${escapeXml(message)}</Message></Error>`;
    res.writeHead(403, { 'content-type': 'application/xml' });
    res.end(xml);
    return;
  }
  const type =
    service === 'dynamodb'
      ? 'com.amazonaws.dynamodb.v20120810#AccessDeniedException'
      : service === 'sqs'
        ? 'com.amazonaws.sqs#AccessDenied'
        : 'AccessDeniedException';
  const text = JSON.stringify({ __type: type, message });
  res.writeHead(400, {
    'content-type': service === 'dynamodb' ? 'application/x-amz-json-1.0' : 'application/x-amz-json-1.1',
    'x-amzn-errortype': type.replace(/^.*#/, ''),
    'x-amzn-query-error': service === 'sqs' ? 'AccessDenied;Sender' : '',
  });
  res.end(text);
}

function escapeXml(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
