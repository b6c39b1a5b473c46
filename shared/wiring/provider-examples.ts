import type { ExamplesLoader } from '../ports/trigger-examples';

/**
 * Every provider's trigger examples, read on first use and only by the functions given this
 * loader (the catalog's listing, the local runtime): the examples are JSON that no other
 * function should carry.
 */
export const loadProviderExamples: ExamplesLoader = async () => {
  const [github, contentsnare] = await Promise.all([
    import('../providers/github/subscriptions/trigger-examples'),
    import('../providers/contentsnare/triggers/snare-examples'),
  ]);
  return { github: github.githubExamples, contentsnare: contentsnare.snareExamples };
};
