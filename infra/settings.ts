import * as z from 'zod';

/**
 * Deploy-time settings: non-secret values an operator chooses at synth
 * (`npx cdk deploy -c stage=prod -c agentRuntimeUrl=https://...`). Each one can also come
 * from the environment variable named beside it, so CI can set them without flags.
 * Secret values never pass through here: they live in Secrets Manager (docs/operations.md, "Deploy").
 */
const optionalUrl = z.url({ protocol: /^https?$/ }).optional();
const flag = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .optional()
  .transform((v) => v === true || v === 'true');

const settingsSchema = z.object({
  stage: z
    .string()
    .regex(/^[a-z0-9-]{1,20}$/, 'lower-case letters, digits and dashes, at most 20')
    .default('dev'),
  publicUrl: optionalUrl,
  agentRuntimeUrl: optionalUrl,
  githubClientId: z.string().min(1).optional(),
  /** The GitHub App (all three or none): its id, URL slug and client id; its secrets are in Secrets Manager. */
  githubAppId: z.string().regex(/^\d+$/, 'the App id, digits').optional(),
  githubAppSlug: z
    .string()
    .regex(/^[a-z0-9-]{1,100}$/, "the App's URL slug")
    .optional(),
  githubAppClientId: z.string().min(1).optional(),
  contentsnareClientId: z.string().min(1).optional(),
  githubApiUrl: optionalUrl,
  githubOAuthUrl: optionalUrl,
  contentsnareApiUrl: optionalUrl,
  contentsnareOAuthUrl: optionalUrl,
  contentsnareAuthorizePath: z.string().startsWith('/').optional(),
  allowedReturnOrigins: z.string().min(1).optional(),
  /** Enterprise servers (names or IPs, comma-separated) whose names may resolve to private addresses. */
  githubAllowedPrivateHosts: z.string().min(1).optional(),
  alarmEmail: z.email().optional(),
  /** Deploy `prod` without `alarmEmail`, knowing its alarms then notify nobody. */
  acceptSilentAlarms: flag,
  /** Dev stages only: delete the table, bucket and secrets with the stack. */
  destroyData: flag,
  logRetentionDays: z.coerce.number().int().positive().default(30),
  /** Below the HTTP API's 30 s integration limit, so a waiting tool step still answers. */
  rateLimitMaxWaitSeconds: z.coerce.number().min(0).max(25).default(20),
  /**
   * Most dispatch executions at once (the queue's event source maximum concurrency; SQS
   * takes 2 to 1000). 2 leaves a new account's 10 concurrent executions to the intake and
   * the API (docs/operations.md, "Concurrency"); raise it with the account's limit.
   */
  dispatchMaxConcurrency: z.coerce.number().int().min(2).max(1000).default(2),
  /**
   * Most dispatch executions at once on the slow lane, which takes the events of agents whose
   * answers are slow (docs/reliability.md, "Throughput"): `rate x answer seconds / 50 x 1.5`.
   */
  dispatchSlowMaxConcurrency: z.coerce.number().int().min(2).max(1000).default(2),
  /**
   * Requests per second each webhook route takes (its burst is twice that). The code host
   * sends an App's deliveries in bursts of hundreds a second and does not retry one refused,
   * so no less than 1,000; at most API Gateway's default account limit per region, 10,000.
   */
  webhookRateLimit: z.coerce
    .number()
    .int()
    .min(1000, 'at least 1000: the code host does not retry a refused delivery')
    .max(10_000)
    .default(1000),
});

export type StackSettings = z.output<typeof settingsSchema>;

/** Context key -> environment variable consulted when the context key is absent. */
export const settingEnvNames: Record<keyof StackSettings, string> = {
  stage: 'STAGE',
  publicUrl: 'PUBLIC_URL',
  agentRuntimeUrl: 'AGENT_RUNTIME_URL',
  githubClientId: 'GITHUB_CLIENT_ID',
  githubAppId: 'GITHUB_APP_ID',
  githubAppSlug: 'GITHUB_APP_SLUG',
  githubAppClientId: 'GITHUB_APP_CLIENT_ID',
  contentsnareClientId: 'CONTENTSNARE_CLIENT_ID',
  githubApiUrl: 'GITHUB_API_URL',
  githubOAuthUrl: 'GITHUB_OAUTH_URL',
  contentsnareApiUrl: 'CONTENTSNARE_API_URL',
  contentsnareOAuthUrl: 'CONTENTSNARE_OAUTH_URL',
  contentsnareAuthorizePath: 'CONTENTSNARE_OAUTH_AUTHORIZE_PATH',
  allowedReturnOrigins: 'ALLOWED_RETURN_ORIGINS',
  githubAllowedPrivateHosts: 'GITHUB_ALLOWED_PRIVATE_HOSTS',
  alarmEmail: 'ALARM_EMAIL',
  acceptSilentAlarms: 'ACCEPT_SILENT_ALARMS',
  destroyData: 'DESTROY_DATA',
  logRetentionDays: 'LOG_RETENTION_DAYS',
  rateLimitMaxWaitSeconds: 'RATE_LIMIT_MAX_WAIT_SECONDS',
  dispatchMaxConcurrency: 'DISPATCH_MAX_CONCURRENCY',
  dispatchSlowMaxConcurrency: 'DISPATCH_SLOW_MAX_CONCURRENCY',
  webhookRateLimit: 'WEBHOOK_RATE_LIMIT',
};

/** The stage whose alarms must reach someone, and whose data may never be deleted with the stack. */
export const productionStage = 'prod';

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid deploy settings:\n  ${problems.join('\n  ')}`);
    this.name = 'SettingsError';
  }
}

/**
 * Reads every setting from `context(key)` (CDK context), falling back to `env`; blank
 * values count as unset. Throws `SettingsError` listing every problem at once.
 */
export function readSettings(context: (key: string) => unknown, env: Record<string, string | undefined> = process.env): StackSettings {
  const raw: Record<string, unknown> = {};
  const given = (v: unknown) => (v === undefined || v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);
  for (const [key, envName] of Object.entries(settingEnvNames)) {
    const value = given(context(key)) ?? given(env[envName]);
    if (value !== undefined) raw[key] = typeof value === 'string' ? value.trim() : value;
  }
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new SettingsError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const s = parsed.data;
  const app = [s.githubAppId, s.githubAppSlug, s.githubAppClientId];
  if (app.some(Boolean) && !app.every(Boolean)) {
    throw new SettingsError(['githubAppId, githubAppSlug and githubAppClientId: set all three for the GitHub App, or none']);
  }
  // Without a receiver every alarm of the stage is silent: production must name one, or say it knows.
  if (s.stage === productionStage && !s.alarmEmail && !s.acceptSilentAlarms) {
    throw new SettingsError([
      `alarmEmail: the ${productionStage} stage needs an address its alarms notify (-c alarmEmail=... or ALARM_EMAIL); ` +
        'to deploy it with alarms that notify nobody, set acceptSilentAlarms=true (ACCEPT_SILENT_ALARMS)',
    ]);
  }
  return s;
}
