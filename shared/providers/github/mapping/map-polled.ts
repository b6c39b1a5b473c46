import * as z from 'zod';
import type { MappedEvent } from '../../../domain/mapping/types';
import { compact, occurrence, parse } from './mapper';
import { repositorySchema, userSchema } from './schemas';

/**
 * Gists, a user account's new repositories and watchers have no webhook: the poller reads them from
 * the REST API and turns each new item into the same MappedEvent shape a webhook would give.
 * dedupeKeys are the item's id (`gist:<id>`, `repository:<id>`: the latter is also what
 * `repository.created` deliveries use), since a polled item has no delivery id.
 * Returns undefined when the item does not have the expected shape.
 */

const gistSchema = z.object({
  id: z.string(),
  html_url: z.string().nullish(),
  description: z.string().nullish(),
  public: z.boolean().nullish(),
  owner: userSchema.nullish(),
  files: z
    .record(
      z.string(),
      z.object({
        filename: z.string().nullish(),
        language: z.string().nullish(),
        type: z.string().nullish(),
        size: z.number().nullish(),
        raw_url: z.string().nullish(),
      }),
    )
    .nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});

/** One gist of `GET /gists` as a new_gist occurrence. */
export function mapPolledGist(gist: unknown): MappedEvent | undefined {
  const g = parse(gistSchema, gist);
  if (!g) return undefined;
  const event = compact({ action: 'created', gist: g, sender: g.owner });
  return occurrence('new_gist', event, {}, `gist:${g.id}`);
}

const polledRepositorySchema = repositorySchema.extend({
  id: z.number(),
  owner: userSchema,
  description: z.string().nullish(),
  fork: z.boolean().nullish(),
  visibility: z.string().nullish(),
  created_at: z.string().nullish(),
});

/** One repository of `GET /user/repos` or `GET /orgs/{org}/repos` as a new_repository occurrence. */
export function mapPolledRepository(repository: unknown): MappedEvent | undefined {
  const r = parse(polledRepositorySchema, repository);
  if (!r) return undefined;
  const organization = r.owner.type === 'Organization' ? { login: r.owner.login, id: r.owner.id } : undefined;
  const event = compact({ action: 'created', repository: r, organization });
  return occurrence('new_repository', event, { repository: r.full_name, organization: r.owner.login }, `repository:${r.id}`);
}

const watcherSchema = userSchema.extend({ id: z.number() });

/**
 * One user of `GET /repos/{owner}/{repo}/subscribers` not seen before as a new_watcher
 * occurrence: someone started watching. The list says nothing of when, so the event has
 * no time of its own; keyed by the user, so a user is announced once per subscription.
 */
export function mapPolledWatcher(user: unknown, repository: string): MappedEvent | undefined {
  const u = parse(watcherSchema, user);
  if (!u) return undefined;
  const [owner] = repository.split('/');
  const event = compact({
    action: 'started',
    repository: { full_name: repository, owner: owner ? { login: owner } : undefined },
    sender: u,
  });
  return occurrence('new_watcher', event, { repository, organization: owner }, `watcher:${u.id}`);
}

const tagSchema = z.object({ name: z.string().min(1), commit: z.object({ sha: z.string() }).nullish() });

/**
 * One tag of `GET /repos/{owner}/{repo}/tags` not seen before as a new_tag occurrence: the
 * code host sends no `create` (nor `push`) for tags pushed more than three at once. Keyed
 * by the name (`tag:<name>`), as the `create` delivery of a tag is, so a tag both seen by
 * the webhook and listed by the poll reaches each subscription once.
 */
export function mapPolledTag(tag: unknown, repository: string): MappedEvent | undefined {
  const t = parse(tagSchema, tag);
  if (!t) return undefined;
  const [owner] = repository.split('/');
  const event = compact({
    ref: t.name,
    ref_type: 'tag',
    repository: { full_name: repository, owner: owner ? { login: owner } : undefined },
    commit: t.commit ?? undefined,
  });
  return occurrence('new_tag', event, { repository, organization: owner }, tagKey(t.name));
}

/** The dedupeKey of a tag, the same from a `create` delivery and from the tags list. */
export function tagKey(name: string): string {
  return `tag:${name}`;
}
