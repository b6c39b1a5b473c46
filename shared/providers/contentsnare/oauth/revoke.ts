import { clientCredentials } from '../../../oauth/providers';
import { sendRevocation, type Revoker } from '../../../oauth/revoke';

/**
 * The collection service documents no revocation endpoint; `POST /oauth/revoke` (RFC 7009,
 * as its OAuth server's conventions suggest) is tried best effort with the refresh token,
 * which ends the whole grant where the server follows RFC 7009 2.1.
 */
export const revokeContentSnare: Revoker = async (deps, _connection, token) => {
  const { clientId, clientSecret } = await clientCredentials(deps, 'contentsnare');
  const [value, hint] = token.refreshToken ? [token.refreshToken, 'refresh_token'] : [token.accessToken, 'access_token'];
  const status = await sendRevocation(deps, `${deps.config.contentsnare.oauthUrl}/oauth/revoke`, {
    method: 'POST',
    // Client credentials in the body only: RFC 6749 2.3 allows one client authentication method per request.
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ token: value, token_type_hint: hint, client_id: clientId, client_secret: clientSecret }).toString(),
  });
  if (status === 200 || status === 204) return { revoked: true };
  return {
    revoked: false,
    failed: true,
    reason: status === undefined ? 'collection service unreachable' : `collection service answered HTTP ${status}`,
  };
};
