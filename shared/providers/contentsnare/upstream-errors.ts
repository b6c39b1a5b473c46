import { AppError, type FieldProblem } from '../../domain/errors';
import { redact } from '../../observability/logger';

/**
 * The collection service's HTTP failures as our stable codes, in one place. Its error body
 * is `{errors: ["message", ...]}` in the reference (seen in client code); field
 * problems are also read from the other usual shapes (`{errors: {field: [msg]}}`,
 * `{errors: [{field, message}]}`, `{field: [msg]}`), and the body itself goes along in
 * `details.upstream` (redacted, truncated).
 */

const maxUpstreamChars = 2000;

function upstreamSummary(data: unknown): unknown {
  const safe = redact(data);
  const text = typeof safe === 'string' ? safe : JSON.stringify(safe);
  if (text === undefined) return undefined;
  return text.length <= maxUpstreamChars ? safe : `${text.slice(0, maxUpstreamChars)}...`;
}

function asMessage(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.filter((m) => typeof m === 'string').join('; ') || undefined;
  return undefined;
}

/** Field problems the service reported, with fields under `input.`. */
export function upstreamFieldProblems(data: unknown): FieldProblem[] {
  if (!data || typeof data !== 'object') return [];
  const safe = redact(data) as Record<string, unknown>;
  // A bare `{field: [messages]}` body counts only when every value is a list of messages.
  const bare = Object.values(safe).every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'));
  const errors = safe.errors ?? (bare ? safe : undefined);
  if (!errors) return [];
  const out: FieldProblem[] = [];
  if (Array.isArray(errors)) {
    for (const e of errors) {
      if (!e || typeof e !== 'object') continue;
      const { field, param, path, message, detail } = e as Record<string, unknown>;
      const name = [field, param, path].find((f) => typeof f === 'string');
      const text = asMessage(message) ?? asMessage(detail);
      if (typeof name === 'string' && text) out.push({ field: `input.${name}`, message: text });
    }
    return out;
  }
  if (typeof errors === 'object') {
    for (const [name, value] of Object.entries(errors as Record<string, unknown>)) {
      const text = asMessage(value);
      if (text && name !== 'message' && name !== 'error') out.push({ field: `input.${name}`, message: text });
    }
  }
  return out;
}

/** The plain messages of an `{errors: [strings]}` body (the reference's error shape). */
export function upstreamReasons(data: unknown): string[] {
  if (!data || typeof data !== 'object') return [];
  const { errors } = data as Record<string, unknown>;
  if (!Array.isArray(errors)) return [];
  return errors.filter((e): e is string => typeof e === 'string').map((e) => String(redact(e)).slice(0, 300));
}

function messageOf(data: unknown): string | undefined {
  if (typeof data === 'string' && data.length > 0 && data.length < 300) return data;
  if (!data || typeof data !== 'object') return undefined;
  const { message, error } = data as Record<string, unknown>;
  return asMessage(message) ?? asMessage(error) ?? (upstreamReasons(data).join('; ') || undefined);
}

/** An answer with status >= 300 (other than 429 and the first 401, handled by the client) as an AppError. */
export function contentSnareHttpError(status: number, data: unknown): AppError {
  const upstream = upstreamSummary(data);
  const said = messageOf(data);
  const suffix = said ? `: ${String(redact(said))}` : '';
  const details: Record<string, unknown> = { status, ...(upstream === undefined ? {} : { upstream }) };
  if (status === 401) {
    return new AppError(
      'reconnect_required',
      'The collection service no longer accepts this connection; disconnect and reconnect it',
      details,
    );
  }
  if (status === 403) return new AppError('forbidden', `The collection service refused access (403)${suffix}`, details);
  if (status === 404) return new AppError('not_found', `Not found at the collection service (404)${suffix}`, details);
  if (status === 409) return new AppError('conflict', `The collection service reported a conflict (409)${suffix}`, details);
  if (status === 413) return new AppError('payload_too_large', 'The collection service refused the body as too large (413)', details);
  // The reference: creating a client whose e-mail exists answers `errors: ["already_invited"]`.
  if (status === 422 && upstreamReasons(data).includes('already_invited')) {
    return new AppError('conflict', 'A client with this e-mail already exists at the collection service (already_invited)', details);
  }
  if (status >= 400 && status < 500) {
    const fields = upstreamFieldProblems(data);
    const listed = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
    return new AppError('invalid_input', `The collection service refused the input (${status})${listed ? `: ${listed}` : suffix}`, {
      ...details,
      fields,
    });
  }
  if (status >= 300 && status < 400) {
    return new AppError('upstream_error', `The collection service answered a redirect (${status}) that was not followed`, details);
  }
  return new AppError('upstream_error', `The collection service failed (${status})${suffix}`, details);
}
