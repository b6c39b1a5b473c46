import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../domain/errors';
import { lambdaMaxBodyBytes } from './body-limits';
import { errorResponse, withSafetyHeaders } from './responses';
import type { Admission, HttpRequest, HttpResponse, RequestHead } from './types';

/** Lambda's synchronous payload limit; the local runtime refuses what AWS would refuse. */
export const maxBodyBytes = lambdaMaxBodyBytes;

class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`Body exceeds ${limit} bytes`);
  }
}

/** The client went away (or the server's request timeout cut it) before the body ended. */
class RequestAborted extends Error {}

/**
 * Reads at most `limit` bytes; a chunked body that goes past it is cut there, not buffered
 * whole. On overflow the stream is paused, not destroyed, so the 413 can still be written.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.pause();
        chunks.length = 0;
        reject(new BodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onClose = () => {
      done();
      reject(new RequestAborted());
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onClose);
  });
}

/** node:http request head -> RequestHead (headers lower-cased); the body stays unread. */
export function nodeRequestHead(req: IncomingMessage): RequestHead {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return { method: req.method ?? 'GET', path: url.pathname, headers, query: url.searchParams };
}

/** node:http request -> HttpRequest (headers lower-cased, raw body bytes kept). */
export async function fromNodeRequest(req: IncomingMessage, limit = maxBodyBytes): Promise<HttpRequest> {
  return { ...nodeRequestHead(req), body: await readBody(req, limit) };
}

export function writeNodeResponse(res: ServerResponse, answer: HttpResponse): void {
  const safe = withSafetyHeaders(answer);
  res.writeHead(safe.status, safe.headers ?? {});
  res.end(safe.body ?? '');
}

/**
 * Answers a request whose body was not (fully) read, then closes the connection: the rest
 * of the body is never read, so a refused upload costs neither memory nor bandwidth.
 */
function answerUnread(req: IncomingMessage, res: ServerResponse, answer: HttpResponse): void {
  const bodyExpected = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  if (!bodyExpected || req.complete) {
    writeNodeResponse(res, answer);
    return;
  }
  writeNodeResponse(res, { ...answer, headers: { ...answer.headers, connection: 'close' } });
  res.once('finish', () => req.socket.destroy());
}

/** Something that decides from the head (a Router), or a plain handler that always reads up to `maxBodyBytes`. */
export type NodeHandler = ((req: HttpRequest) => Promise<HttpResponse>) & { admit?: (head: RequestHead) => Promise<Admission> };

function admitWith(handle: NodeHandler): (head: RequestHead) => Promise<Admission> {
  if (handle.admit) return handle.admit.bind(handle);
  return async (head) => ({ kind: 'read', maxBodyBytes, run: (body) => handle({ ...head, body }) });
}

/**
 * Adapts a transport-neutral handler to node:http. With a Router, the route, the key and a
 * declared size are decided before the body is read (router.ts `admit`); the body is then
 * read up to the route's limit (413 past it). `Expect: 100-continue` is only continued once
 * the request is admitted (wire it to the server's `checkContinue` event).
 */
export function nodeListener(handle: NodeHandler, onError: (e: unknown) => void) {
  const admit = admitWith(handle);
  /** `continueOnAdmit`: called from `checkContinue`, where node has not sent `100 Continue` itself. */
  return (req: IncomingMessage, res: ServerResponse, continueOnAdmit = false): void => {
    let head: RequestHead;
    try {
      head = nodeRequestHead(req);
    } catch {
      answerUnread(req, res, errorResponse(new AppError('invalid_input', 'Malformed request target')));
      return;
    }
    admit(head)
      .then(async (admission) => {
        if (admission.kind === 'answer') return answerUnread(req, res, admission.response);
        if (continueOnAdmit) res.writeContinue();
        const body = await readBody(req, admission.maxBodyBytes);
        writeNodeResponse(res, await admission.run(body));
      })
      .catch((e: unknown) => {
        if (res.headersSent || e instanceof RequestAborted) return;
        if (e instanceof BodyTooLarge) {
          answerUnread(req, res, errorResponse(new AppError('payload_too_large', e.message, { limit: e.limit })));
          return;
        }
        onError(e);
        answerUnread(req, res, errorResponse(new AppError('internal', 'Internal error')));
      });
  };
}
