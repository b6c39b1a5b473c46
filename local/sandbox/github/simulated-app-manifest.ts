import { randomBytes } from 'node:crypto';
import type { RecordedRequest, SimulatedResponse } from '../simulated-http';

/**
 * GitHub's App manifest flow as GitHub documents it ("Registering a GitHub App from a
 * manifest"; `POST /app-manifests/{code}/conversions` in its REST description):
 *
 * - the browser posts a form field `manifest` (JSON) to `/settings/apps/new?state=` (or
 *   `/organizations/{org}/settings/apps/new?state=`); GitHub shows the App to the person, makes
 *   it, and redirects to the manifest's `redirect_url` with `code` and the same `state`;
 * - the code, valid one hour and once, is traded without authentication for the App: its
 *   description with `client_id`, `client_secret`, `webhook_secret` and `pem`.
 *
 * The simulated code host plays one App (simulated-github-app.ts), so the App "made" is that one,
 * named and wired as the manifest says; its person approves at once.
 */

/** The App the simulated code host plays: what a conversion hands over. */
export interface ManifestApp {
  appId: number;
  slug: string;
  clientId: string;
  clientSecret: string;
  privateKeyPem: string;
  webhookSecret: string;
  /** Where the App's user authorization returns: the manifest's first `callback_urls`. */
  callbackUrl: string;
}

/** What the flow was given, for the tests that read it. */
export interface PostedManifest {
  organization?: string;
  state?: string;
  manifest: Record<string, unknown>;
}

const codeLifetimeMs = 60 * 60 * 1000;

export class SimulatedAppManifests {
  /** Every manifest posted, oldest first. */
  readonly posted: PostedManifest[] = [];
  private readonly codes = new Map<string, { expiresAt: number; manifest: Record<string, unknown>; owner: string }>();

  constructor(
    private readonly app: ManifestApp,
    private readonly owner: () => string,
    private readonly now: () => number,
  ) {}

  handle(req: RecordedRequest): SimulatedResponse | undefined {
    const page = /^(?:\/organizations\/([^/]+))?\/settings\/apps\/new$/.exec(req.path);
    if (req.method === 'POST' && page) return this.make(req, page[1]);
    const conversion = /^\/app-manifests\/([^/]+)\/conversions$/.exec(req.path);
    if (req.method === 'POST' && conversion) return this.convert(decodeURIComponent(conversion[1] ?? ''));
    return undefined;
  }

  private make(req: RecordedRequest, organization: string | undefined): SimulatedResponse {
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(new URLSearchParams(req.body).get('manifest') ?? '') as Record<string, unknown>;
    } catch {
      return { status: 422, body: { message: 'Invalid manifest: not JSON' } };
    }
    const hook = manifest.hook_attributes as { url?: unknown } | undefined;
    // The fields GitHub requires; without `redirect_url` there is nowhere to send the code.
    if (typeof manifest.url !== 'string' || typeof hook?.url !== 'string' || typeof manifest.redirect_url !== 'string')
      return { status: 422, body: { message: 'Invalid manifest: url, hook_attributes.url and redirect_url are required' } };
    const state = req.query.get('state') ?? undefined;
    this.posted.push({ manifest, ...(organization ? { organization } : {}), ...(state ? { state } : {}) });
    const callback = Array.isArray(manifest.callback_urls) ? manifest.callback_urls[0] : undefined;
    if (typeof callback === 'string') this.app.callbackUrl = callback;
    const code = randomBytes(20).toString('hex');
    this.codes.set(code, { expiresAt: this.now() + codeLifetimeMs, manifest, owner: organization ?? this.owner() });
    const back = new URL(manifest.redirect_url);
    back.searchParams.set('code', code);
    if (state) back.searchParams.set('state', state);
    return { status: 302, headers: { location: back.toString() } };
  }

  private convert(code: string): SimulatedResponse {
    const issued = this.codes.get(code);
    this.codes.delete(code);
    if (!issued || issued.expiresAt <= this.now()) return { status: 404, body: { message: 'Not Found' } };
    const { manifest } = issued;
    const at = new Date(this.now()).toISOString();
    return {
      status: 201,
      body: {
        id: this.app.appId,
        slug: this.app.slug,
        node_id: `A_${this.app.appId}`,
        owner: { login: issued.owner, id: 1, type: 'User' },
        name: String(manifest.name ?? this.app.slug),
        description: null,
        external_url: String(manifest.url),
        html_url: `https://github.com/apps/${this.app.slug}`,
        created_at: at,
        updated_at: at,
        permissions: manifest.default_permissions ?? {},
        events: manifest.default_events ?? [],
        client_id: this.app.clientId,
        client_secret: this.app.clientSecret,
        webhook_secret: this.app.webhookSecret,
        pem: this.app.privateKeyPem,
      },
    };
  }
}
