import { contentsnareTools } from '../providers/contentsnare/tools';
import { githubTools } from '../providers/github/tools';
import type { Provider } from '../domain/model';
import type { ProviderTools } from '../tools/tool-step';

/** Each provider's tool steps, by its id: what the tool-step function, the console and the guides are given. */
export const providerTools: Readonly<Record<Provider, ProviderTools>> = {
  github: githubTools,
  contentsnare: contentsnareTools,
};

/** Every provider's tool steps, in catalog order (code host first, then the collection service). */
export function allProviderTools(): ProviderTools[] {
  return Object.values(providerTools);
}
