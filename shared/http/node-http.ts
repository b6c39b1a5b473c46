import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../domain/errors';
import { errorResponse } from './responses';
import type { HttpRequest, HttpResponse } from './types';

/** Lambda's synchronous payload limit; the local runtime refuses what AWS would refuse. */
export const maxBodyBytes = 6 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** node:http request -> HttpRequest (headers lower-cased, raw body bytes kept). */
export async function fromNodeRequest(req: IncomingMessage, limit = maxBodyBytes): Promise<HttpRequest> {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return { method: req.method ?? 'GET', path: url.pathname, headers, query: url.searchParams, body: await readBody(req, limit) };
}

export function writeNodeResponse(res: ServerResponse, answer: HttpResponse): void {
  res.writeHead(answer.status, answer.headers ?? {});
  res.end(answer.body ?? '');
}

/** Adapts a transport-neutral handler to node:http, answering 413 for oversized bodies. */
export function nodeListener(handle: (req: HttpRequest) => Promise<HttpResponse>, onError: (e: unknown) => void) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    fromNodeRequest(req)
      .then(handle)
      .then((answer) => writeNodeResponse(res, answer))
      .catch((e: unknown) => {
        if (e instanceof BodyTooLarge) {
          writeNodeResponse(res, errorResponse(new AppError('payload_too_large', `Body exceeds ${maxBodyBytes} bytes`)));
          req.resume();
          return;
        }
        onError(e);
        if (!res.headersSent) writeNodeResponse(res, errorResponse(new AppError('internal', 'Internal error')));
      });
  };
}
