import * as z from 'zod';

/**
 * The code host's answers as the steps hand them on: the fields of its REST response
 * schemas (its published OpenAPI description) an agent acts on, field by field. Parsing
 * keeps these and drops the rest (URL templates, node ids, reaction rollups, nested
 * repositories). Identifying fields are required, so an answer without them is the code
 * host's failure (`upstream_error`); the others are passed on when the code host gives them,
 * `null` where the description says it may be null. Each is a function: schemas are built
 * on first use (cold start).
 */

const text = () => z.string();
const count = () => z.number().int();
const timestamp = (what: string) => z.string().describe(`${what} (ISO 8601)`);

export const account = () =>
  z
    .object({
      login: z.string(),
      id: count().optional(),
      type: z.string().optional().describe('User, Organization or Bot'),
      html_url: z.string().optional(),
      avatar_url: z.string().optional(),
    })
    .describe('An account of the code host');

const label = () =>
  z.object({
    id: count().optional(),
    name: z.string().optional(),
    color: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
  });

const milestone = () =>
  z.object({
    id: count().optional(),
    number: count(),
    title: text().optional(),
    state: z.string().optional(),
    due_on: z.string().nullable().optional(),
    html_url: z.string().optional(),
  });

export const repository = () =>
  z.object({
    id: count(),
    full_name: z.string().describe('owner/name'),
    name: z.string().optional(),
    owner: account().optional(),
    private: z.boolean().optional(),
    visibility: z.string().optional().describe('public, private or internal'),
    html_url: z.string().optional(),
    description: z.string().nullable().optional(),
    homepage: z.string().nullable().optional(),
    language: z.string().nullable().optional(),
    topics: z.array(z.string()).optional(),
    default_branch: z.string().optional(),
    fork: z.boolean().optional(),
    archived: z.boolean().optional(),
    disabled: z.boolean().optional(),
    is_template: z.boolean().optional(),
    has_issues: z.boolean().optional(),
    has_projects: z.boolean().optional(),
    has_wiki: z.boolean().optional(),
    has_discussions: z.boolean().optional(),
    forks_count: count().optional(),
    stargazers_count: count().optional(),
    watchers_count: count().optional(),
    open_issues_count: count().optional(),
    size: count().optional().describe('Kilobytes'),
    license: z
      .object({ key: z.string().optional(), name: z.string().optional(), spdx_id: z.string().nullable().optional() })
      .nullable()
      .optional(),
    permissions: z
      .object({
        admin: z.boolean().optional(),
        maintain: z.boolean().optional(),
        push: z.boolean().optional(),
        triage: z.boolean().optional(),
        pull: z.boolean().optional(),
      })
      .optional()
      .describe("The connected account's permissions on the repository"),
    clone_url: z.string().optional(),
    ssh_url: z.string().optional(),
    created_at: timestamp('Created').optional(),
    updated_at: timestamp('Last updated').optional(),
    pushed_at: timestamp('Last pushed').nullable().optional(),
  });

export const issue = () =>
  z.object({
    id: count().optional(),
    number: count(),
    title: text().optional(),
    state: z.string().optional().describe('open or closed'),
    state_reason: z.string().nullable().optional(),
    body: z.string().nullable().optional(),
    html_url: z.string().optional(),
    user: account().nullable().optional(),
    labels: z.array(z.union([z.string(), label()])).optional(),
    assignees: z.array(account()).nullable().optional(),
    milestone: milestone().nullable().optional(),
    locked: z.boolean().optional(),
    comments: count().optional(),
    pull_request: z
      .object({ html_url: z.string().nullable().optional(), merged_at: z.string().nullable().optional() })
      .optional()
      .describe('Present when the issue is a pull request'),
    draft: z.boolean().optional(),
    type: z.object({ id: count().optional(), name: z.string().optional() }).nullable().optional(),
    author_association: z.string().optional(),
    repository_url: z.string().optional(),
    created_at: timestamp('Created').optional(),
    updated_at: timestamp('Last updated').optional(),
    closed_at: timestamp('Closed').nullable().optional(),
  });

export const issueComment = () =>
  z.object({
    id: count(),
    body: z.string().optional(),
    html_url: z.string().optional(),
    issue_url: z.string().optional(),
    user: account().nullable().optional(),
    author_association: z.string().optional(),
    created_at: timestamp('Created').optional(),
    updated_at: timestamp('Last updated').optional(),
  });

const branchRef = () =>
  z.object({
    ref: z.string(),
    sha: z.string().optional(),
    label: z.string().optional(),
  });

export const pullRequest = () =>
  z.object({
    id: count().optional(),
    number: count(),
    title: text().optional(),
    state: z.string().optional().describe('open or closed'),
    draft: z.boolean().optional(),
    body: z.string().nullable().optional(),
    html_url: z.string().optional(),
    diff_url: z.string().optional(),
    user: account().optional(),
    head: branchRef().optional(),
    base: branchRef().optional(),
    labels: z.array(label()).optional(),
    assignees: z.array(account()).nullable().optional(),
    requested_reviewers: z.array(account()).nullable().optional(),
    merged: z.boolean().optional(),
    mergeable: z.boolean().nullable().optional(),
    mergeable_state: z.string().optional(),
    maintainer_can_modify: z.boolean().optional(),
    commits: count().optional(),
    additions: count().optional(),
    deletions: count().optional(),
    changed_files: count().optional(),
    created_at: timestamp('Created').optional(),
    updated_at: timestamp('Last updated').optional(),
    closed_at: timestamp('Closed').nullable().optional(),
    merged_at: timestamp('Merged').nullable().optional(),
  });

const gitPerson = () => z.object({ name: z.string().optional(), email: z.string().optional(), date: z.string().optional() }).nullable();

/** A commit's author or committer account; the code host answers `{}` when the e-mail is no account's. */
const commitAccount = () =>
  z
    .union([account(), z.object({})])
    .nullable()
    .optional();

export const commit = () =>
  z.object({
    sha: z.string(),
    html_url: z.string().optional(),
    commit: z
      .object({
        message: z.string().optional(),
        author: gitPerson().optional(),
        committer: gitPerson().optional(),
        comment_count: count().optional(),
      })
      .optional(),
    author: commitAccount(),
    committer: commitAccount(),
    parents: z.array(z.object({ sha: z.string(), html_url: z.string().optional() })).optional(),
    stats: z.object({ total: count().optional(), additions: count().optional(), deletions: count().optional() }).optional(),
    files: z
      .array(
        z.object({
          filename: z.string(),
          status: z.string().optional().describe('added, removed, modified, renamed, copied, changed or unchanged'),
          additions: count().optional(),
          deletions: count().optional(),
          changes: count().optional(),
          patch: z.string().optional(),
          previous_filename: z.string().optional(),
        }),
      )
      .optional(),
  });

export const contentEntry = () =>
  z.object({
    type: z.string().describe('file, dir, symlink or submodule'),
    name: z.string(),
    path: z.string(),
    sha: z.string().optional(),
    size: count().optional(),
    html_url: z.string().nullable().optional(),
    download_url: z.string().nullable().optional(),
  });

const gistFile = () =>
  z.object({
    filename: z.string().optional(),
    type: z.string().optional(),
    language: z.string().nullable().optional(),
    raw_url: z.string().optional(),
    size: count().optional(),
    truncated: z.boolean().optional(),
    content: z.string().optional(),
  });

export const gist = () =>
  z.object({
    id: z.string(),
    description: z.string().nullable().optional(),
    public: z.boolean().optional(),
    html_url: z.string().optional(),
    files: z.record(z.string(), gistFile().nullable()).optional(),
    owner: account().nullable().optional(),
    comments: count().optional(),
    truncated: z.boolean().optional(),
    created_at: timestamp('Created').optional(),
    updated_at: timestamp('Last updated').optional(),
  });

export const workflowRun = () =>
  z.object({
    id: count(),
    name: z.string().nullable().optional(),
    display_title: z.string().optional(),
    status: z.string().nullable().optional().describe('queued, in_progress, completed, ...'),
    conclusion: z.string().nullable().optional().describe('success, failure, cancelled, timed_out, ... once completed'),
    workflow_id: count().optional(),
    run_number: count().optional(),
    run_attempt: count().optional(),
    event: z.string().optional(),
    head_branch: z.string().nullable().optional(),
    head_sha: z.string().optional(),
    path: z.string().optional(),
    html_url: z.string().optional(),
    actor: account().optional(),
    triggering_actor: account().optional(),
    created_at: timestamp('Created').optional(),
    updated_at: timestamp('Last updated').optional(),
    run_started_at: timestamp('Started').optional(),
  });

export const release = () =>
  z.object({
    id: count(),
    tag_name: z.string(),
    name: z.string().nullable().optional(),
    body: z.string().nullable().optional(),
    draft: z.boolean().optional(),
    prerelease: z.boolean().optional(),
    target_commitish: z.string().optional(),
    html_url: z.string().optional(),
    tarball_url: z.string().nullable().optional(),
    zipball_url: z.string().nullable().optional(),
    author: account().optional(),
    assets: z
      .array(
        z.object({
          id: count().optional(),
          name: z.string(),
          content_type: z.string().optional(),
          size: count().optional(),
          download_count: count().optional(),
          browser_download_url: z.string().optional(),
        }),
      )
      .optional(),
    created_at: timestamp('Created').optional(),
    published_at: timestamp('Published').nullable().optional(),
  });

/** A list step's answer: the items, how many, and whether the code host had more than `max_items`. */
export const listed = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    count: count(),
    truncated: z.boolean().describe('True when the code host had more than max_items to give'),
  });

/** `outcome` beside `conclusion`: succeeded, failed or cancelled once completed, else null. */
export const outcome = () =>
  z.enum(['succeeded', 'failed', 'cancelled']).nullable().describe('succeeded, failed or cancelled once status is completed, else null');

/** A file a change touches, as the code host lists a pull request's or a comparison's files. */
export const changedFile = () =>
  z.object({
    filename: z.string(),
    status: z.string().optional().describe('added, removed, modified, renamed, copied, changed or unchanged'),
    additions: z.number().int().optional(),
    deletions: z.number().int().optional(),
    changes: z.number().int().optional(),
    patch: z.string().optional().describe("The file's unified diff hunks; absent for binary files and very large diffs"),
    previous_filename: z.string().optional().describe('The name before a rename'),
    sha: z.string().nullable().optional(),
    blob_url: z.string().optional(),
  });
