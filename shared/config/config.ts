import * as z from 'zod';
import { minKeyLength, platformKeyProblems, splitPlatformKeys } from './platform-keys';

/**
 * Configuration from the environment, checked once at start. Only `deps.ts` files and
 * the local runtime call `loadConfig`; everything else receives the typed object.
 * Secret values (API key, signing secret, OAuth client secrets) come either directly
 * from the environment (local) or from Secrets Manager by ARN (AWS, `*_SECRET_ARN`),
 * resolved in the wiring (shared/config/secret-config.ts).
 */
const url = z.url({ protocol: /^https?$/ });
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));
/** One key, or `<new>,<old>` during a rotation; each at least 32 characters (platform-keys.ts). */
const platformKey = optionalString.transform((v, ctx) => {
  if (v === undefined) return undefined;
  for (const message of platformKeyProblems(v)) ctx.addIssue({ code: 'custom', message });
  return splitPlatformKeys(v).join(',');
});
const signingSecret = optionalString.refine(
  (v) => v === undefined || v.length >= minKeyLength,
  `must be at least ${minKeyLength} characters`,
);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: url.optional(),
  /** A webhook relay channel (smee.io): hooks are registered there and the local runtime replays its stream. */
  WEBHOOK_PROXY_URL: url.optional().or(z.literal('').transform(() => undefined)),
  PLATFORM_API_KEY: platformKey,
  PLATFORM_API_KEY_SECRET_ARN: optionalString,
  AGENT_RUNTIME_URL: url.optional().or(z.literal('').transform(() => undefined)),
  DISPATCH_SIGNING_SECRET: signingSecret,
  DISPATCH_SIGNING_SECRET_ARN: optionalString,
  GITHUB_API_URL: url.default('https://api.github.com'),
  GITHUB_OAUTH_URL: url.default('https://github.com'),
  GITHUB_CLIENT_ID: optionalString,
  GITHUB_CLIENT_SECRET: optionalString,
  GITHUB_CLIENT_SECRET_ARN: optionalString,
  GITHUB_ALLOWED_PRIVATE_HOSTS: optionalString,
  // The GitHub App (optional): with id, slug and client id set, the App flow and webhook work.
  GITHUB_APP_ID: optionalString,
  GITHUB_APP_SLUG: optionalString,
  GITHUB_APP_CLIENT_ID: optionalString,
  GITHUB_APP_PRIVATE_KEY: optionalString,
  GITHUB_APP_PRIVATE_KEY_SECRET_ARN: optionalString,
  GITHUB_APP_CLIENT_SECRET: optionalString,
  GITHUB_APP_CLIENT_SECRET_ARN: optionalString,
  GITHUB_APP_WEBHOOK_SECRET: optionalString,
  GITHUB_APP_WEBHOOK_SECRET_ARN: optionalString,
  // On AWS, the App the manifest flow made: its id, slug and client id, read when the three above are not set.
  GITHUB_APP_IDENTITY_SECRET_ARN: optionalString,
  CONTENTSNARE_API_URL: url.default('https://api.contentsnare.com'),
  CONTENTSNARE_OAUTH_URL: url.default('https://api.contentsnare.com'),
  // The partner API's OAuth flow: `/oauth/authorization` in the official OpenAPI's
  // security scheme and the newest client; one other client uses `/oauth/authorize`.
  CONTENTSNARE_OAUTH_AUTHORIZE_PATH: z.string().startsWith('/').default('/oauth/authorization'),
  CONTENTSNARE_CLIENT_ID: optionalString,
  CONTENTSNARE_CLIENT_SECRET: optionalString,
  CONTENTSNARE_CLIENT_SECRET_ARN: optionalString,
  CONTENTSNARE_SCOPES: z.string().default('read_clients write_clients read_requests write_requests read_templates'),
  POLL_INTERVAL_SECONDS: z.coerce.number().positive().default(60),
  SWEEP_INTERVAL_SECONDS: z.coerce.number().positive().default(300),
  ALLOWED_RETURN_ORIGINS: optionalString,
  RATE_LIMIT_MAX_WAIT_SECONDS: z.coerce.number().min(0).default(30),
  UPSTREAM_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
  DATA_DIR: z.string().min(1).default('.data'),
  // AWS resources, set by the stack on each function.
  TABLE_NAME: z.string().min(1).default('integrations'),
  QUEUE_URL: optionalString,
  DLQ_URL: optionalString,
  BLOB_BUCKET: optionalString,
  SECRET_PREFIX: z.string().default('agent-integrations/'),
  // The KMS key that encrypts the GitHub App's installation tokens in the table (AWS only; locally the secret store's key).
  KMS_KEY_ARN: optionalString,
  // `off` on a function not granted the code host's token area (the webhook intake): shared/store/legacy-token-names.ts.
  SECRET_LEGACY_TOKEN_NAMES: z.enum(['move', 'off']).default('move'),
  STAGE: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .default('dev'),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
});

export type Env = z.output<typeof envSchema>;

export interface Config {
  port: number;
  publicUrl: string;
  /** WEBHOOK_PROXY_URL: code-host hooks point here (`?endpoint=<id>`); the local runtime forwards its stream (local/webhook-proxy.ts). */
  webhookProxyUrl?: string;
  /** One key, or `<new>,<old>` during a rotation (see platform-keys.ts). */
  platformApiKey?: string;
  platformApiKeySecretArn?: string;
  agentRuntimeUrl?: string;
  dispatchSigningSecret?: string;
  dispatchSigningSecretArn?: string;
  github: {
    apiUrl: string;
    oauthUrl: string;
    clientId?: string;
    clientSecret?: string;
    clientSecretArn?: string;
    /** GITHUB_ALLOWED_PRIVATE_HOSTS: enterprise hosts (lower-case names or IPs) that may resolve to private addresses. */
    allowedPrivateHosts: string[];
    /** The GitHub App, when GITHUB_APP_ID, GITHUB_APP_SLUG and GITHUB_APP_CLIENT_ID are set. */
    app?: GitHubAppConfig;
    /**
     * The App's secrets on AWS (`GITHUB_APP_*_SECRET_ARN`), given before the App exists: the manifest flow writes them,
     * and its identity (id, slug, client id) into `identity`, where every function reads an App the deploy settings do not name.
     */
    appSecretArns?: { privateKey?: string; clientSecret?: string; webhookSecret?: string; identity?: string };
  };
  contentsnare: {
    apiUrl: string;
    oauthUrl: string;
    authorizePath: string;
    clientId?: string;
    clientSecret?: string;
    clientSecretArn?: string;
    scopes: string;
  };
  pollIntervalSeconds: number;
  /** SWEEP_INTERVAL_SECONDS: the local runtime's redelivery sweep interval (on AWS, a 5-minute schedule). */
  sweepIntervalSeconds: number;
  allowedReturnOrigins: string[];
  rateLimitMaxWaitSeconds: number;
  /** UPSTREAM_TIMEOUT_SECONDS: limit of one outbound call to the code host (headers and body). */
  upstreamTimeoutSeconds: number;
  dataDir: string;
  tableName: string;
  queueUrl?: string;
  dlqUrl?: string;
  blobBucket?: string;
  secretPrefix: string;
  /** KMS_KEY_ARN: the key that seals the GitHub App's installation tokens kept in the table (AWS). */
  kmsKeyArn?: string;
  /** `move`: a collection-service token still under its old name is moved on first use. */
  secretLegacyTokenNames: 'move' | 'off';
  stage: string;
  logLevel: Env['LOG_LEVEL'];
}

/** The GitHub App's settings; its secrets come from the environment locally and by ARN on AWS. */
export interface GitHubAppConfig {
  appId: string;
  slug: string;
  clientId: string;
  privateKey?: string;
  privateKeySecretArn?: string;
  clientSecret?: string;
  clientSecretArn?: string;
  webhookSecret?: string;
  webhookSecretArn?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

function stripSlash(u: string): string {
  return u.replace(/\/+$/, '');
}

/**
 * A relay channel's URL without the trailing slash of its path: smee.io routes `/:channel`
 * exactly, so `https://smee.io/abc/` would be a 404 for the stream and for the code host.
 */
function withoutTrailingSlash(u: string | undefined): string | undefined {
  if (u === undefined) return undefined;
  const parsed = new URL(u);
  parsed.pathname = parsed.pathname.replace(/\/+$/, '') || '/';
  const text = parsed.toString();
  return parsed.pathname === '/' && !parsed.search ? stripSlash(text) : text;
}

function githubApp(e: Env): GitHubAppConfig | undefined {
  if (!e.GITHUB_APP_ID || !e.GITHUB_APP_SLUG || !e.GITHUB_APP_CLIENT_ID) return undefined;
  return {
    appId: e.GITHUB_APP_ID,
    slug: e.GITHUB_APP_SLUG,
    clientId: e.GITHUB_APP_CLIENT_ID,
    // PEM text in one environment line keeps its line breaks as `\n`.
    privateKey: e.GITHUB_APP_PRIVATE_KEY?.replace(/\\n/g, '\n'),
    privateKeySecretArn: e.GITHUB_APP_PRIVATE_KEY_SECRET_ARN,
    clientSecret: e.GITHUB_APP_CLIENT_SECRET,
    clientSecretArn: e.GITHUB_APP_CLIENT_SECRET_ARN,
    webhookSecret: e.GITHUB_APP_WEBHOOK_SECRET,
    webhookSecretArn: e.GITHUB_APP_WEBHOOK_SECRET_ARN,
  };
}

/** GITHUB_ALLOWED_PRIVATE_HOSTS as host names: lower case, an IPv6 literal without its brackets. */
function privateHosts(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((h) =>
      h
        .trim()
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1'),
    )
    .filter(Boolean);
}

/**
 * Reads and checks the environment (given by the caller: a function's deps.ts or the local
 * runtime, the only readers of `process.env`); throws `ConfigError` listing every problem at once.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const publicUrl = stripSlash(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`);
  const origins = (e.ALLOWED_RETURN_ORIGINS ?? new URL(publicUrl).origin)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const problems: string[] = [];
  const allowedReturnOrigins = origins.map((o) => {
    try {
      return new URL(o).origin;
    } catch {
      problems.push(`ALLOWED_RETURN_ORIGINS: "${o}" is not a URL origin`);
      return o;
    }
  });
  const appIds = [e.GITHUB_APP_ID, e.GITHUB_APP_SLUG, e.GITHUB_APP_CLIENT_ID];
  if (appIds.some(Boolean) && !appIds.every(Boolean))
    problems.push('GITHUB_APP_ID, GITHUB_APP_SLUG and GITHUB_APP_CLIENT_ID: set all three for the GitHub App, or none');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: e.PORT,
    publicUrl,
    webhookProxyUrl: withoutTrailingSlash(e.WEBHOOK_PROXY_URL),
    platformApiKey: e.PLATFORM_API_KEY,
    platformApiKeySecretArn: e.PLATFORM_API_KEY_SECRET_ARN,
    agentRuntimeUrl: e.AGENT_RUNTIME_URL,
    dispatchSigningSecret: e.DISPATCH_SIGNING_SECRET,
    dispatchSigningSecretArn: e.DISPATCH_SIGNING_SECRET_ARN,
    github: {
      apiUrl: stripSlash(e.GITHUB_API_URL),
      oauthUrl: stripSlash(e.GITHUB_OAUTH_URL),
      clientId: e.GITHUB_CLIENT_ID,
      clientSecret: e.GITHUB_CLIENT_SECRET,
      clientSecretArn: e.GITHUB_CLIENT_SECRET_ARN,
      allowedPrivateHosts: privateHosts(e.GITHUB_ALLOWED_PRIVATE_HOSTS),
      app: githubApp(e),
      appSecretArns: {
        privateKey: e.GITHUB_APP_PRIVATE_KEY_SECRET_ARN,
        clientSecret: e.GITHUB_APP_CLIENT_SECRET_ARN,
        webhookSecret: e.GITHUB_APP_WEBHOOK_SECRET_ARN,
        identity: e.GITHUB_APP_IDENTITY_SECRET_ARN,
      },
    },
    contentsnare: {
      apiUrl: stripSlash(e.CONTENTSNARE_API_URL),
      oauthUrl: stripSlash(e.CONTENTSNARE_OAUTH_URL),
      authorizePath: e.CONTENTSNARE_OAUTH_AUTHORIZE_PATH,
      clientId: e.CONTENTSNARE_CLIENT_ID,
      clientSecret: e.CONTENTSNARE_CLIENT_SECRET,
      clientSecretArn: e.CONTENTSNARE_CLIENT_SECRET_ARN,
      scopes: e.CONTENTSNARE_SCOPES,
    },
    pollIntervalSeconds: e.POLL_INTERVAL_SECONDS,
    sweepIntervalSeconds: e.SWEEP_INTERVAL_SECONDS,
    allowedReturnOrigins,
    rateLimitMaxWaitSeconds: e.RATE_LIMIT_MAX_WAIT_SECONDS,
    upstreamTimeoutSeconds: e.UPSTREAM_TIMEOUT_SECONDS,
    dataDir: e.DATA_DIR,
    tableName: e.TABLE_NAME,
    queueUrl: e.QUEUE_URL,
    dlqUrl: e.DLQ_URL,
    blobBucket: e.BLOB_BUCKET,
    secretPrefix: e.SECRET_PREFIX,
    kmsKeyArn: e.KMS_KEY_ARN,
    secretLegacyTokenNames: e.SECRET_LEGACY_TOKEN_NAMES,
    stage: e.STAGE,
    logLevel: e.LOG_LEVEL,
  };
}
