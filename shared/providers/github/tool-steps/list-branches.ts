import * as z from 'zod';
import { needs } from './common';
import { repositoryListing } from './listing-step';

/** A branch as `repos/list-branches` lists it: its name and the commit at its head. */
export const branch = () =>
  z.object({
    name: z.string(),
    commit: z.object({ sha: z.string(), url: z.string().optional() }).describe('The commit at the head of the branch'),
    protected: z.boolean().optional().describe('Whether branch protection rules apply to it'),
  });

export const listBranches = repositoryListing({
  id: 'github.list_branches',
  title: 'List Branches',
  toolset: 'repos',
  description:
    "Lists a repository's branches, each with the SHA of its head commit, following pages up to `max_items`. For tags use github.list_tags; for the commits on one branch, github.list_commits with `sha` set to the branch.",
  permissions: needs({ contents: 'read' }, 'repo'),
  route: 'GET /repos/{owner}/{repo}/branches',
  item: branch,
  filters: () => ({
    protected: z.boolean().optional().describe('true: only protected branches; false: only unprotected ones; omitted: all'),
  }),
});
