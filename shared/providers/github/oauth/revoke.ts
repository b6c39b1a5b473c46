import { ConnectionRepo } from '../../../store/connection-repo';
import { clientCredentials } from '../../../oauth/providers';
import { basicAuth, sendRevocation, type Revoker } from '../../../oauth/revoke';
import { originOf } from '../../../oauth/token-origin';
import { boundOrigin } from '../github-base';

/**
 * Code host OAuth: deleting the grant removes the app's authorization (all of its tokens)
 * for that user, which is the clean end of a connection. But several connections may be
 * the same account: then only this connection's token is deleted, so the others live on.
 */
export const revokeGithub: Revoker = async (deps, connection, token) => {
  if (connection.authMethod !== 'oauth') {
    return {
      revoked: false,
      reason:
        'A user-made token is deleted here only: revoke it at the code host yourself (Settings > Developer settings > Personal access tokens), the app cannot',
    };
  }
  // Revocation sends the token to GITHUB_API_URL: never when it was issued for another origin.
  if (boundOrigin(token, connection, deps.config) !== originOf(deps.config.github.apiUrl)) {
    return { revoked: false, reason: 'the token was issued for another server than GITHUB_API_URL: not sent there to be revoked' };
  }
  const accessToken = token.accessToken;
  const { clientId, clientSecret } = await clientCredentials(deps, 'github');
  const siblings = connection.accountId
    ? (await new ConnectionRepo(deps.store).list()).filter(
        (c) => c.id !== connection.id && c.provider === 'github' && c.authMethod === 'oauth' && c.accountId === connection.accountId,
      )
    : [];
  const what = siblings.length > 0 ? 'token' : 'grant';
  const status = await sendRevocation(deps, `${deps.config.github.apiUrl}/applications/${encodeURIComponent(clientId)}/${what}`, {
    method: 'DELETE',
    headers: {
      authorization: basicAuth(clientId, clientSecret),
      accept: 'application/vnd.github+json',
      'content-type': 'application/json',
      'user-agent': 'agent-integrations',
    },
    body: JSON.stringify({ access_token: accessToken }),
  });
  if (status === 204) return { revoked: true };
  // 404/422: the grant or token is already gone (revoked by the user).
  if (status === 404 || status === 422) return { revoked: false, reason: `already revoked at the code host (HTTP ${status})` };
  return { revoked: false, failed: true, reason: status === undefined ? 'code host unreachable' : `code host answered HTTP ${status}` };
};
