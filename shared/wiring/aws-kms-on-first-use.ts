import { AppError } from '../domain/errors';
import { loadOnce } from '../domain/load-once';
import type { TokenSealer } from '../ports/token-sealer';

const loadKms = loadOnce(() => import('../adapters/aws/kms-token-sealer'));

/**
 * The installation tokens' sealer on the stack's KMS key (KMS_KEY_ARN). The SDK client is loaded
 * on the first seal or open: a container that holds its tokens, or meets no GitHub App
 * connection, never pays its cold start. Without a key (a function the stack gives none) every
 * use answers `not_configured`, naming the setting.
 */
export function kmsSealerOnFirstUse(keyArn: string | undefined): TokenSealer {
  if (!keyArn) {
    const missing = () =>
      Promise.reject(
        new AppError('not_configured', 'KMS_KEY_ARN is not set for this function, so it cannot keep GitHub App installation tokens'),
      );
    return { seal: missing, open: missing };
  }
  let sealer: Promise<TokenSealer> | undefined;
  const get = () => {
    sealer ??= loadKms().then(({ kmsTokenSealer }) => kmsTokenSealer(keyArn));
    return sealer;
  };
  return {
    seal: async (plaintext, context) => (await get()).seal(plaintext, context),
    open: async (sealed, context) => (await get()).open(sealed, context),
  };
}
