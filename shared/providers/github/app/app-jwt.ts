import { AppError } from '../../../domain/errors';
import { loadOnce } from '../../../domain/load-once';
import type { GitHubAppConfig } from '../../../config/config';

// The library is loaded at the first App call, not with every function that may never make one.
const loadAuthApp = loadOnce(() => import('@octokit/auth-app'));

type AppAuth = (options: { type: 'app' }) => Promise<{ token: string }>;

/**
 * The library dates `iat` 30 s back; GitHub recommends 60 s "to allow for clock drift". Its
 * `timeDifference` shifts both claims, so `exp` stays 10 minutes after `iat` (9 from now).
 */
const extraMarginSeconds = 30;

/** A `Date` further than this from this machine's clock is not believed (s). */
const maxSkewSeconds = 24 * 3600;

/** The code host's clock minus this machine's (s), learned from the `Date` of a refusal that named the JWT's times. */
let codeHostSkewSeconds = 0;

let made: { key: string; appId: string; skew: number; auth: AppAuth } | undefined;

/**
 * A JSON Web Token that authenticates as the App (RS256 over the private key, `iss` the app
 * id, issued 60 s in the past as GitHub recommends and valid 10 minutes from then), made by
 * `@octokit/auth-app`. Its timestamps are the machine's real time on purpose, corrected by the
 * skew learned from the code host (`appJwtAfterSkew`): the code host checks them against its own.
 * The private key never leaves this module's closure.
 */
export async function appJwt(app: GitHubAppConfig, privateKey: string | undefined): Promise<string> {
  if (!privateKey) {
    throw new AppError(
      'not_configured',
      'The GitHub App has no private key: set GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_SECRET_ARN',
      {
        missing: ['GITHUB_APP_PRIVATE_KEY'],
      },
    );
  }
  return sign(app.appId, privateKey);
}

async function sign(appId: string, privateKey: string): Promise<string> {
  const skew = codeHostSkewSeconds;
  if (!made || made.key !== privateKey || made.appId !== appId || made.skew !== skew) {
    const { createAppAuth } = await loadAuthApp();
    // `timeDifference` is read by the library's JWT step (state.timeDifference) though its option type omits it.
    const options = { appId, privateKey, timeDifference: skew - extraMarginSeconds };
    made = { key: privateKey, appId, skew, auth: createAppAuth(options) as unknown as AppAuth };
  }
  try {
    return (await made.auth({ type: 'app' })).token;
  } catch {
    // The library's message may quote the key material it failed to read: say only what is wrong.
    made = undefined;
    throw new AppError('not_configured', 'The GitHub App private key cannot be read as a PEM RSA key: check GITHUB_APP_PRIVATE_KEY');
  }
}

/**
 * GitHub's refusals of a JWT for its times (the messages `@octokit/auth-app` retries on): `iat`
 * in its future, `exp` too far ahead or already past. A bad key or `iss` says something else.
 */
export function isJwtTimeRefusal(message: string): boolean {
  return /'Issued at' claim \('iat'\)|'Expiration time' claim \('exp'\)/.test(message);
}

/**
 * After the code host refused `rejected` for its times: learns the skew from the answer's
 * `Date` (epoch ms) and makes the App's JWT again on the code host's time, as
 * `@octokit/auth-app` does before its one retry. Undefined when `rejected` is not a JWT this
 * module made with the key it holds, or the `Date` is not believable: the refusal then stands.
 */
export async function appJwtAfterSkew(rejected: string, codeHostDateMs: number): Promise<string | undefined> {
  const held = made;
  if (!held || !Number.isFinite(codeHostDateMs) || issuerOf(rejected) !== held.appId) return undefined;
  const skew = Math.round((codeHostDateMs - Date.now()) / 1000);
  if (Math.abs(skew) > maxSkewSeconds) return undefined;
  codeHostSkewSeconds = skew;
  return sign(held.appId, held.key);
}

function issuerOf(jwt: string): string | undefined {
  const payload = jwt.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const iss = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iss?: unknown }).iss;
    return iss === undefined ? undefined : String(iss);
  } catch {
    return undefined;
  }
}
