import { escapeHtml as h } from '../../shared/http/html';
import { shell } from './render';

/**
 * Where the connect page brings the browser back (GET /console/connected) when the session
 * cookie did not come with it: a same-site step on to the console, by itself (a refresh,
 * no script) or by the link.
 */
export function connectLanding(to: string, nonce: string): string {
  return shell(
    'Console: back from connecting',
    nonce,
    `<meta http-equiv="refresh" content="0;url=${h(to)}"><main class="login"><section><h2>Back from the connect page</h2>` +
      `<p><a id="back-to-console" href="${h(to)}">Back to the console</a></p></section></main>`,
  );
}
