import { collaborationMappers } from './collaboration';
import { commentMappers } from './comments';
import { discussionMappers } from './discussions';
import { issueMappers } from './issues';
import type { DeliveryKey, Mapper, MapperTable } from './mapper';
import { mentionMappers } from './mentions';
import { projectMappers } from './projects';
import { pullRequestMappers } from './pull-requests';
import { pushMappers } from './push';
import { releaseMappers } from './releases';
import { repositoryMappers } from './repository';
import { workflowMappers } from './workflows';

/**
 * The whole mapping: `"<event>.<action>"` (or `"<event>"` for action-less events such as
 * push, create, fork) -> the mappers that read it. Families are merged, so one key may fire
 * several triggers (e.g. `issues.labeled` -> updated_issue and new_label_on_issue; every
 * body-carrying key -> new_mention too).
 */
function merge(...tables: MapperTable[]): ReadonlyMap<string, readonly Mapper[]> {
  const out = new Map<string, Mapper[]>();
  for (const table of tables) {
    for (const [key, mappers] of Object.entries(table) as Array<[DeliveryKey, Mapper[]]>) {
      out.set(key, [...(out.get(key) ?? []), ...mappers]);
    }
  }
  return out;
}

export const mappingTable = merge(
  repositoryMappers,
  issueMappers,
  pullRequestMappers,
  commentMappers,
  pushMappers,
  workflowMappers,
  collaborationMappers,
  projectMappers,
  releaseMappers,
  discussionMappers,
  mentionMappers,
);
