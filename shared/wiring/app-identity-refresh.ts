import type { Config } from '../config/config';
import { appFromIdentity, isSameApp, readAppIdentity } from '../adapters/aws/app-identity-secret';
import type { Logger } from '../observability/logger';

/** While a container has no App, it looks again this often: an App made meanwhile is taken within a minute. */
export const noAppRecheckMs = 60_000;
/** Once it has one from the secret, this often: an App made in its place (`replace`) reaches warm containers. */
export const appRecheckMs = 5 * 60_000;

export interface AppIdentityRefreshDeps {
  /** The container's settings: `app` is set here, where every part reads it at each use. */
  github: Config['github'];
  /** The identity secret's value (Secrets Manager by ARN), undefined when it has none. */
  read: (arn: string) => Promise<string | undefined>;
  now: () => number;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Takes the GitHub App from the stack's identity secret into a Lambda container, called before
 * each invocation uses the config: it reads at the first call (the cold start), then again once
 * `noAppRecheckMs` passed while there is no App, or `appRecheckMs` once there is one. The same
 * App read again keeps its object (and the secrets its readers hold); another App is a new object.
 * When the deploy settings name an App, or the function has no identity secret, the secret is
 * never read. A failed read is logged and keeps what the container had, until the next interval.
 */
export function appIdentityRefresh(deps: AppIdentityRefreshDeps): () => Promise<void> {
  const { github } = deps;
  const arn = github.appSecretArns?.identity;
  if (github.app !== undefined || !arn) return () => Promise.resolve();
  let dueAt: number | undefined;
  let running: Promise<void> | undefined;

  const take = async () => {
    try {
      const reading = readAppIdentity(await deps.read(arn));
      if (reading.kind === 'app') {
        if (!isSameApp(github.app, reading.identity)) github.app = appFromIdentity(reading.identity, github.appSecretArns ?? {});
      } else {
        if (reading.problems)
          deps.logger.warn('the GitHub App identity secret holds no App: its value is JSON of another shape', {
            problems: reading.problems,
          });
        github.app = undefined;
      }
    } catch (e) {
      deps.logger.warn('the GitHub App identity secret could not be read: the App in use is kept until the next try', { error: e });
    }
    dueAt = deps.now() + (github.app ? appRecheckMs : noAppRecheckMs);
  };

  return () => {
    if (running) return running;
    if (dueAt !== undefined && deps.now() < dueAt) return Promise.resolve();
    running = take().finally(() => {
      running = undefined;
    });
    return running;
  };
}
