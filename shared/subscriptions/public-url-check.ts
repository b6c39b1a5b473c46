import { AppError } from '../domain/errors';
import { classifyAddress, isIpLiteral } from '../http/address-policy';

/** Names that only ever mean this machine or a local network: a public code host cannot post to them. */
function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h.endsWith('.local') ||
    h.endsWith('.internal') ||
    h.endsWith('.lan') ||
    h.endsWith('.home.arpa') ||
    !h.includes('.')
  );
}

/** Whether a URL's host is out of reach from the public Internet (loopback, private or local names), by its spelling alone. */
export function isNonPublicHost(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIpLiteral(host)) return classifyAddress(host) !== 'public';
  return isLocalName(host);
}

/**
 * Refuses, before asking the code host, a webhook URL it would refuse: github.com answers
 * 422 "Validation Failed" to a hook on a host it cannot reach from the Internet. Only when
 * the code host itself is public: an enterprise server (or a sandbox) on the same network
 * can post to a private or loopback URL.
 */
export function assertReachableWebhookUrl(hookUrl: string, codeHostApiBase: string): void {
  if (!isNonPublicHost(hookUrl) || isNonPublicHost(codeHostApiBase)) return;
  const host = new URL(hookUrl).host;
  throw new AppError(
    'public_url_unreachable',
    `The webhook URL ${hookUrl} is on ${host}, which the code host cannot reach from the Internet (it would refuse it with 422 "Validation Failed"). ` +
      'Set PUBLIC_URL to a public tunnel to this runtime (e.g. https://<name>.ngrok.app, a cloudflared URL), ' +
      'or set WEBHOOK_PROXY_URL to a smee.io channel (https://smee.io/new) to receive real deliveries here; see docs/sandbox.md',
    { webhookUrl: hookUrl, fix: ['PUBLIC_URL', 'WEBHOOK_PROXY_URL'] },
  );
}
