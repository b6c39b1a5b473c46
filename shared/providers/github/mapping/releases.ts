import * as z from 'zod';
import { baseEvent, baseFacts, occurrence, parse, type MapperTable } from './mapper';
import { envelopeSchema, userSchema } from './schemas';

/**
 * Releases: new_release on `published` only. The code host also sends `created` (drafts
 * too), `released` and `prereleased` for the same publication; taking one action announces
 * each release once. Prereleases are published too, and `event.release.prerelease` says so.
 */

const releasePayload = envelopeSchema.extend({
  release: z.object({
    id: z.number(),
    tag_name: z.string(),
    target_commitish: z.string().nullish(),
    name: z.string().nullish(),
    body: z.string().nullish(),
    draft: z.boolean().nullish(),
    prerelease: z.boolean().nullish(),
    html_url: z.string().nullish(),
    tarball_url: z.string().nullish(),
    zipball_url: z.string().nullish(),
    author: userSchema.nullish(),
    created_at: z.string().nullish(),
    published_at: z.string().nullish(),
  }),
});

export const releaseMappers: MapperTable = {
  'release.published': [
    (payload) => {
      const p = parse(releasePayload, payload);
      return p ? [occurrence('new_release', { ...baseEvent(p), release: p.release }, baseFacts(p), `release:${p.release.id}`)] : [];
    },
  ],
};
