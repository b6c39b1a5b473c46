import * as z from 'zod';
import type { GitHubAppConfig } from '../../config/config';

/**
 * What the stack's App identity secret holds once the manifest flow made an App: the three
 * settings that name it (none of them secret). Its key, client secret and webhook secret stay
 * in the stack's other three secrets.
 */
const identitySchema = z.object({
  appId: z.string().min(1),
  slug: z.string().min(1),
  clientId: z.string().min(1),
});

export type AppIdentity = z.infer<typeof identitySchema>;

/** The secret's text as an App, or none: `problems` (the fields at fault) when it was JSON of another shape. */
export type AppIdentityReading = { kind: 'app'; identity: AppIdentity } | { kind: 'none'; problems?: string[] };

/** The text the manifest flow writes. */
export function appIdentityText(identity: AppIdentity): string {
  return JSON.stringify(identitySchema.parse({ appId: identity.appId, slug: identity.slug, clientId: identity.clientId }));
}

/**
 * The secret's value read as an App. The placeholder the stack generates (random letters and
 * digits, not JSON) is "no App made here", said by no log line; JSON of another shape is no App
 * too, but with the fields at fault, so someone who wrote the secret by hand learns why.
 */
export function readAppIdentity(text: string | undefined): AppIdentityReading {
  if (text === undefined || text === '') return { kind: 'none' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'none' };
  }
  const parsed = identitySchema.safeParse(value);
  if (parsed.success) return { kind: 'app', identity: parsed.data };
  return { kind: 'none', problems: parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`) };
}

/** The App named by an identity, its secrets read by the stack's ARNs (a new object: fresh secret readers). */
export function appFromIdentity(
  identity: AppIdentity,
  arns: { privateKey?: string; clientSecret?: string; webhookSecret?: string },
): GitHubAppConfig {
  return {
    appId: identity.appId,
    slug: identity.slug,
    clientId: identity.clientId,
    privateKeySecretArn: arns.privateKey,
    clientSecretArn: arns.clientSecret,
    webhookSecretArn: arns.webhookSecret,
  };
}

/** Whether `app` is the App `identity` names (then its object, and its cached secrets, are kept). */
export function isSameApp(app: GitHubAppConfig | undefined, identity: AppIdentity): boolean {
  return app !== undefined && app.appId === identity.appId && app.slug === identity.slug && app.clientId === identity.clientId;
}
