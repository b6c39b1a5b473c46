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

/** Taking this body would go past what the listener holds of all bodies at once. */
class OverBudget extends Error {}

/**
 * Bytes of request bodies one listener holds at once (read, and not yet answered). Each body
 * is bounded by its route; this bounds their sum, so many slow uploads at the same time cost
 * at most `max` of memory, whatever the connection count.
 */
interface BodyBudget {
  held: number;
  readonly max: number;
}

/** Default of `maxBufferedBytes`: ten bodies at the largest route limit. */
export const defaultMaxBufferedBytes = 64 * 1024 * 1024;

/**
 * Reads at most `limit` bytes; a chunked body that goes past it is cut there, not buffered
 * whole. On overflow the stream is paused, not destroyed, so the 413 can still be written.
 */
function readBody(req: IncomingMessage, limit: number, budget: BodyBudget = { held: 0, max: Infinity }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (e: Error) => {
      done();
      req.pause();
      chunks.length = 0;
      budget.held -= size;
      reject(e);
    };
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) return fail(new BodyTooLarge(limit));
      if (budget.held + chunk.length > budget.max) return fail(new OverBudget());
      size += chunk.length;
      budget.held += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onClose = () => fail(new RequestAborted());
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
  const head: RequestHead = { method: req.method ?? 'GET', path: url.pathname, headers, query: url.searchParams };
  if (req.socket.remoteAddress !== undefined) head.clientAddress = req.socket.remoteAddress;
  return head;
}

export function writeNodeResponse(res: ServerResponse, answer: HttpResponse): void {
  const safe = withSafetyHeaders(answer);
  const body = safe.body ?? '';
  const headers = { ...safe.headers };
  // With a Content-Length, node sends the head and a string body in one write. Without one,
  // writeHead() fixes a chunked head before the body is seen: a writev of four pieces, and
  // framing the client must undo.
  if (!bodiless(safe.status) && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length'))
    headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(safe.status, headers);
  res.end(body);
}

/** Statuses that never carry a body, and so no Content-Length either (RFC 9110, 8.6). */
function bodiless(status: number): boolean {
  return status < 200 || status === 204 || status === 304;
}

/** Up to this, an unread body of a refused request is read and thrown away rather than the connection closed. */
const discardableBytes = 64 * 1024;

/**
 * Answers a request whose body was not (fully) read. A small declared body not yet touched
 * is thrown away by node as it arrives (never held), and the connection stays open; any
 * other body is never read: the connection is closed after the answer, so a refused upload
 * costs neither memory nor bandwidth.
 */
function answerUnread(req: IncomingMessage, res: ServerResponse, answer: HttpResponse, bodyStarted = false): void {
  const bodyExpected = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  // A client that waits for `100 Continue` will not send the body it declared: only closing keeps the framing right.
  const small =
    !bodyExpected ||
    (!bodyStarted &&
      req.headers.expect === undefined &&
      req.headers['transfer-encoding'] === undefined &&
      Number(req.headers['content-length']) <= discardableBytes);
  if (small || req.complete) {
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
export function nodeListener(handle: NodeHandler, onError: (e: unknown) => void, options: { maxBufferedBytes?: number } = {}) {
  const admit = admitWith(handle);
  const budget: BodyBudget = { held: 0, max: options.maxBufferedBytes ?? defaultMaxBufferedBytes };
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
        const body = await readBody(req, admission.maxBodyBytes, budget);
        try {
          writeNodeResponse(res, await admission.run(body));
        } finally {
          budget.held -= body.length;
        }
      })
      .catch((e: unknown) => {
        if (res.headersSent || e instanceof RequestAborted) return;
        if (e instanceof BodyTooLarge) {
          answerUnread(req, res, errorResponse(new AppError('payload_too_large', e.message, { limit: e.limit })), true);
          return;
        }
        if (e instanceof OverBudget) {
          // Too many bodies in flight: the code host redelivers a 5xx, a platform client retries.
          const answer = errorResponse(new AppError('unavailable', 'Too many request bodies in flight; retry shortly'));
          answerUnread(req, res, { ...answer, headers: { ...answer.headers, 'retry-after': '1' } }, true);
          return;
        }
        onError(e);
        answerUnread(req, res, errorResponse(new AppError('internal', 'Internal error')), true);
      });
  };
}
