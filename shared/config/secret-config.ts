import { AppError } from '../domain/errors';

/** Reads a secret's value by ARN (Secrets Manager on AWS); undefined when it has none. */
export type SecretReader = (arn: string) => Promise<string | undefined>;

export interface SecretSource {
  /** The value itself, from the environment (local runs, tests). */
  value?: string;
  /** Where the value lives in Secrets Manager (the stack sets this on AWS). */
  arn?: string;
  /** The two environment variables, for error messages, e.g. `PLATFORM_API_KEY` and `PLATFORM_API_KEY_SECRET_ARN`. */
  env: { value: string; arn: string };
}

/** Reads a secret again once its value is older than `maxAgeMs`, so a changed value reaches warm containers. */
export interface SecretRefresh {
  maxAgeMs: number;
  now: () => number;
}

/**
 * A configured secret, resolved on first use and then kept for the container's life, or,
 * with `refresh`, read again once older than `refresh.maxAgeMs` (the platform key, which
 * operators rotate). The ARN wins when both are set: on AWS the stack's secret is the source
 * of truth. A failed or empty first read is not kept, so the next call tries again; a failed
 * re-read keeps the last value (and tries again after another max age), so a Secrets
 * Manager outage does not lock callers out. Error messages name the environment variables,
 * never a value.
 */
export function optionalSecret(source: SecretSource, read: SecretReader, refresh?: SecretRefresh): () => Promise<string | undefined> {
  let pending: Promise<string> | undefined;
  let readAt = 0;
  let lastGood: string | undefined;
  return () => {
    const arn = source.arn;
    if (!arn) return Promise.resolve(source.value);
    if (pending && refresh && refresh.now() - readAt > refresh.maxAgeMs) pending = undefined;
    if (!pending) {
      readAt = refresh?.now() ?? 0;
      const fallback = lastGood;
      pending = read(arn)
        .then((v) => {
          if (v === undefined || v === '') throw new AppError('not_configured', `The secret named by ${source.env.arn} has no value`);
          lastGood = v;
          return v;
        })
        .catch((e: unknown) => {
          if (fallback !== undefined) return fallback;
          pending = undefined;
          throw e;
        });
    }
    return pending;
  };
}

/** Like `optionalSecret`, but a missing value is an error naming both variables. */
export function requiredSecret(source: SecretSource, read: SecretReader, refresh?: SecretRefresh): () => Promise<string> {
  const resolve = optionalSecret(source, read, refresh);
  return async () => {
    const v = await resolve();
    if (v === undefined)
      throw new AppError('not_configured', `${source.env.value} is not configured: set ${source.env.value} or ${source.env.arn}`);
    return v;
  };
}
