import { contentsnareTools } from '../../shared/providers/contentsnare/tools';
import { githubTools } from '../../shared/providers/github/tools';
import type { ProviderTools } from '../../shared/tools/tool-step';

/** Every provider's tool steps, in catalog order (code host first, then the collection service). */
export function allProviderTools(): ProviderTools[] {
  return [githubTools, contentsnareTools];
}
