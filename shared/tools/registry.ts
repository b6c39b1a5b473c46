import { contentsnareTools } from '../contentsnare/tools';
import { githubTools } from '../github/tools';
import type { ProviderTools } from './tool-step';

/** Every provider's tool steps, in catalog order (code host first, then the collection service). */
export function allProviderTools(): ProviderTools[] {
  return [githubTools as unknown as ProviderTools, contentsnareTools as unknown as ProviderTools];
}
