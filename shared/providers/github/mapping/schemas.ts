import * as z from 'zod';

/**
 * Minimal payload shapes, shared by the mappers. Each schema lists the fields an agent needs
 * (zod strips the rest, so the parsed value IS the compact `event` part) and requires only
 * what identifies the object: a body whose `X-GitHub-Event` lies fails here and maps to nothing.
 * Field names are the code host's.
 */

const str = z.string().nullish();
const num = z.number().nullish();
const bool = z.boolean().nullish();

export const userSchema = z.object({ login: z.string(), id: num, type: str, html_url: str });
const optUser = userSchema.nullish();

export const repositorySchema = z.object({
  id: num,
  name: str,
  full_name: z.string(),
  html_url: str,
  private: bool,
  owner: z.object({ login: z.string() }).nullish(),
  default_branch: str,
});

export const organizationSchema = z.object({ login: z.string(), id: num });

export const labelSchema = z.object({ name: z.string(), color: str });

export const issueSchema = z.object({
  id: num,
  number: z.number(),
  title: z.string(),
  body: str,
  state: str,
  state_reason: str,
  html_url: str,
  user: optUser,
  labels: z.array(labelSchema).nullish(),
  assignees: z.array(userSchema).nullish(),
  created_at: str,
  updated_at: str,
  closed_at: str,
  /** Present when the "issue" is a pull request. */
  pull_request: z.object({ url: str, html_url: str }).nullish(),
});

const refSchema = z.object({ ref: z.string(), sha: z.string() });

export const pullRequestSchema = z.object({
  id: num,
  number: z.number(),
  title: z.string(),
  body: str,
  state: str,
  draft: bool,
  merged: bool,
  html_url: str,
  user: optUser,
  labels: z.array(labelSchema).nullish(),
  assignees: z.array(userSchema).nullish(),
  requested_reviewers: z.array(userSchema.or(z.object({ name: z.string(), slug: str }))).nullish(),
  head: refSchema,
  base: refSchema,
  created_at: str,
  updated_at: str,
  closed_at: str,
  merged_at: str,
});

export const commentSchema = z.object({
  id: z.number(),
  body: str,
  html_url: str,
  user: optUser,
  created_at: str,
  updated_at: str,
});

/** `changes.body.from` on `edited` actions: what the body said before. */
export const bodyChangesSchema = z.object({ body: z.object({ from: str }).nullish() }).nullish();

/** Fields every repository-scoped delivery carries. */
export const envelopeSchema = z.object({
  action: z.string().optional(),
  repository: repositorySchema,
  organization: organizationSchema.nullish(),
  sender: optUser,
});

/** Fields of organization-scoped deliveries (Projects v2 items have no repository). */
export const orgEnvelopeSchema = z.object({
  action: z.string().optional(),
  repository: repositorySchema.nullish(),
  organization: organizationSchema,
  sender: optUser,
});
