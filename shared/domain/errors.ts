/**
 * The error family. Every failure the product reports carries a stable string `code`;
 * entry points map codes to HTTP status or retry behaviour in one place
 * (`statusByCode` in shared/http/responses.ts, the consumers' retry policy).
 */
export const errorCodes = [
  'invalid_input',
  'unauthorized',
  'forbidden',
  /** A webhook the product registered and relies on: not for an API call to read, change or delete. */
  'managed_hook',
  'not_found',
  'conflict',
  'payload_too_large',
  /** A JSON body nests deeper than the edge allows (shared/http/json-shape.ts). */
  'nesting_too_deep',
  'rate_limited',
  /** Too many replays of one event, or by one key, lately: `details.retryAfter` says when the next is allowed. */
  'replay_limited',
  'upstream_error',
  'timeout',
  'connection_not_found',
  'reconnect_required',
  'token_origin_mismatch',
  'not_configured',
  /** PUBLIC_URL (the webhook URL) is out of the code host's reach: a loopback or private address. */
  'public_url_unreachable',
  'invalid_signature',
  'unavailable',
  /** The answer would exceed the largest body the edge may send (Lambda's 6 MB response limit). */
  'answer_too_large',
  'internal',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface FieldProblem {
  /** Dotted path of the field, e.g. `input.owner` or `filters.branch`. */
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** Bad input: the message names every bad field, and `details.fields` lists them. */
export class InvalidInputError extends AppError {
  constructor(problems: FieldProblem[], prefix = 'Invalid input') {
    super('invalid_input', `${prefix}: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`, {
      fields: problems,
    });
    this.name = 'InvalidInputError';
  }
}

/** A store write whose condition did not hold (the item existed, changed, or was gone). */
export class ConditionFailedError extends Error {
  constructor(message = 'condition failed') {
    super(message);
    this.name = 'ConditionFailedError';
  }
}
