import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Secrets Manager over its wire protocol (JSON 1.1, `X-Amz-Target: secretsmanager.<Op>`), in
 * memory, for the AWS-mode suite: no emulator of it is published on npm. It answers what the
 * product's SDK client sends (CreateSecret, GetSecretValue, PutSecretValue, DeleteSecret,
 * RestoreSecret, DescribeSecret) with the shapes and error types the service documents: an
 * ARN is `arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 random characters>`, a
 * SecretId may be the name, the full ARN or the ARN without its suffix; a secret scheduled
 * for deletion answers InvalidRequestException until restored.
 */
export interface EmulatedSecret {
  name: string;
  arn: string;
  value?: string;
  versionId: string;
  deletedAt?: number;
}

export interface SecretsManagerEmulator {
  url: string;
  /** Every secret by ARN (tests read and seed them directly). */
  secrets: Map<string, EmulatedSecret>;
  /** Creates a secret outside the wire (the stack's own secrets, which CloudFormation would make), under a given ARN. */
  seed(arn: string, value: string): void;
  /** The value of a secret by name or ARN, or undefined. */
  valueOf(id: string): string | undefined;
  /** The full ARN of a secret by name, partial or full ARN, or undefined when there is none. */
  arnOf(id: string): string | undefined;
  close(): Promise<void>;
}

const suffixChars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export async function startSecretsManagerEmulator(o: { region: string; accountId: string }): Promise<SecretsManagerEmulator> {
  const secrets = new Map<string, EmulatedSecret>();
  const arnFor = (name: string) => {
    const suffix = [...randomBytes(6)].map((b) => suffixChars[b % suffixChars.length]).join('');
    return `arn:aws:secretsmanager:${o.region}:${o.accountId}:secret:${name}-${suffix}`;
  };
  const find = (id: string): EmulatedSecret | undefined => {
    const exact = secrets.get(id);
    if (exact) return exact;
    for (const s of secrets.values()) if (s.name === id || s.arn.slice(0, -7) === id) return s;
    return undefined;
  };

  const ops: Json11Ops = {
    CreateSecret(input) {
      const name = String(input.Name ?? '');
      if (!name) throw fault('ValidationException', 'Name is required');
      if (find(name)) throw fault('ResourceExistsException', `The operation failed because the secret ${name} already exists.`);
      const s: EmulatedSecret = { name, arn: arnFor(name), versionId: randomUUID() };
      if (typeof input.SecretString === 'string') s.value = input.SecretString;
      secrets.set(s.arn, s);
      return { ARN: s.arn, Name: s.name, VersionId: s.versionId };
    },
    GetSecretValue(input) {
      const s = existing(input);
      if (s.value === undefined)
        throw fault('ResourceNotFoundException', "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT");
      return {
        ARN: s.arn,
        Name: s.name,
        VersionId: s.versionId,
        SecretString: s.value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: Date.now() / 1000,
      };
    },
    PutSecretValue(input) {
      const s = existing(input);
      s.value = String(input.SecretString ?? '');
      s.versionId = randomUUID();
      return { ARN: s.arn, Name: s.name, VersionId: s.versionId, VersionStages: ['AWSCURRENT'] };
    },
    DescribeSecret(input) {
      const s = present(input);
      return { ARN: s.arn, Name: s.name, ...(s.deletedAt ? { DeletedDate: s.deletedAt / 1000 } : {}) };
    },
    DeleteSecret(input) {
      const s = present(input);
      if (input.ForceDeleteWithoutRecovery === true) secrets.delete(s.arn);
      else s.deletedAt = Date.now();
      return { ARN: s.arn, Name: s.name, DeletionDate: Date.now() / 1000 };
    },
    RestoreSecret(input) {
      const s = present(input);
      delete s.deletedAt;
      return { ARN: s.arn, Name: s.name };
    },
  };
  function present(input: Record<string, unknown>): EmulatedSecret {
    const s = find(String(input.SecretId ?? ''));
    if (!s) throw fault('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return s;
  }
  function existing(input: Record<string, unknown>): EmulatedSecret {
    const s = present(input);
    if (s.deletedAt !== undefined) {
      throw fault('InvalidRequestException', 'You tried to perform the operation on a secret that is currently marked deleted.');
    }
    return s;
  }

  const { server, port } = await serveJson11('secretsmanager', ops, { internalError: 'InternalServiceError', internalStatus: 400 });
  return {
    url: `http://127.0.0.1:${port}`,
    secrets,
    seed(arn, value) {
      const name = arn.replace(/^.*:secret:/, '').slice(0, -7);
      secrets.set(arn, { name, arn, value, versionId: randomUUID() });
    },
    valueOf: (id) => find(id)?.value,
    arnOf: (id) => find(id)?.arn,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Json11Ops = Record<string, (input: Record<string, unknown>) => Record<string, unknown>>;

/**
 * A JSON 1.1 service on loopback (the protocol of Secrets Manager and KMS): `X-Amz-Target:
 * <prefix>.<Op>` runs `ops[Op]` on the JSON body; a thrown Fault is answered with its type,
 * anything else as the service's internal error. `onCall` sees each operation named.
 */
export async function serveJson11(
  prefix: string,
  ops: Json11Ops,
  o: { internalError: string; internalStatus: number; onCall?: (op: string) => void },
): Promise<{ server: Server; port: number }> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const op = target.startsWith(`${prefix}.`) ? target.slice(prefix.length + 1) : '';
      o.onCall?.(op || target);
      const handler = ops[op];
      try {
        if (!handler) throw fault('UnknownOperationException', `Unknown operation ${target}`);
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        answer(res, 200, handler(input));
      } catch (e) {
        const f = e as Fault;
        const type = f.type ?? o.internalError;
        answer(res, f.type ? 400 : o.internalStatus, { __type: type, message: f.message }, type);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** An error as a JSON 1.1 service answers it: `__type` and `message` (the KMS stand-in answers the same way). */
export type Fault = Error & { type?: string };

export function fault(type: string, message: string): Fault {
  return Object.assign(new Error(message), { type });
}

export function answer(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'x-amzn-requestid': randomUUID(),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
