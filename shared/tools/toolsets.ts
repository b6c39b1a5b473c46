/**
 * The groups the tool steps are listed in, named as GitHub's own MCP server names its
 * toolsets (context, repos, issues, pull_requests, users, actions, discussions, search, git,
 * gists, projects), plus one for the collection service. An MCP client asks for some of them
 * (`/mcp?toolsets=`, the `X-MCP-Toolsets` header or `/mcp/x/{toolset}`) so that a model
 * chooses among a short list.
 */
export const toolsets = [
  'context',
  'repos',
  'git',
  'issues',
  'pull_requests',
  'users',
  'actions',
  'discussions',
  'search',
  'gists',
  'projects',
  'contentsnare',
] as const;

export type Toolset = (typeof toolsets)[number];

/** What each toolset holds, for `tools/list` descriptions and the docs. */
export const toolsetDescriptions: Readonly<Record<Toolset, string>> = {
  context: 'Who the connection is and the guarded API call for what no typed tool covers',
  repos: 'Repositories, their files, branches, commits, tags and releases',
  git: 'Git objects: trees, commits and references (several files in one commit)',
  issues: 'Issues, their comments and labels',
  pull_requests: 'Pull requests: diff, files, reviews, merging',
  users: 'Accounts and their permissions',
  actions: 'Workflows, their runs and jobs, job logs',
  discussions: 'Discussions and their comments (GraphQL)',
  search: 'Searching code, commits, repositories, issues and pull requests',
  gists: 'Gists',
  projects: 'Projects (v2)',
  contentsnare: 'The collection service: clients and requests',
};

export function isToolset(name: string): name is Toolset {
  return (toolsets as readonly string[]).includes(name);
}
