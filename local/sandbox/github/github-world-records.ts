import * as z from 'zod';
import { repoGitSchema } from './github-world-git';

/** The records the simulated code host keeps: repositories with their issues, commits, files and refs; gists. */
const record = z.record(z.string(), z.unknown());
const commitSchema = z.object({ sha: z.string(), message: z.string(), date: z.string(), parents: z.array(z.string()) });
const issueSchema = z.object({
  id: z.number().int(),
  number: z.number().int(),
  title: z.string(),
  body: z.string().nullable(),
  state: z.enum(['open', 'closed']),
  labels: z.array(z.string()),
  assignees: z.array(z.string()),
  user: z.string(),
  comments: z.array(z.object({ id: z.number().int(), body: z.string(), user: z.string(), created_at: z.string() })),
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable(),
  /** Present on a pull request: the code host numbers issues and pull requests from one sequence. */
  pull: z.object({ head: z.string(), base: z.string(), draft: z.boolean() }).optional(),
});
export const repoSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  owner: z.string(),
  ownerType: z.enum(['User', 'Organization']),
  private: z.boolean(),
  description: z.string().nullable(),
  default_branch: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  pushed_at: z.string(),
  nextNumber: z.number().int(),
  issues: z.array(issueSchema),
  commits: z.array(commitSchema),
  files: z.record(z.string(), z.object({ content: z.string(), sha: z.string() })),
  refs: z.record(z.string(), z.string()),
  runs: z.array(record),
  releases: z.array(record),
  git: repoGitSchema.optional(),
});
export const gistSchema = z.object({
  id: z.string(),
  description: z.string().nullable(),
  public: z.boolean(),
  files: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});

export type RepoRecord = z.infer<typeof repoSchema>;
