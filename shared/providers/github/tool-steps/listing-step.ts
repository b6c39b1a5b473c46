import * as z from 'zod';
import type { StepPermissions } from '../../../tools/tool-step';
import type { Toolset } from '../../../tools/toolsets';
import { githubStep, pageInput, pagesOf, repoInput, repositoryOf } from './common';
import { listed } from './outputs';

type Listing = { owner: string; repo: string; max_items: number };

/**
 * A step that lists the items of one repository endpoint, following its pages up to
 * `max_items`: the input is the repository (or `scope`, which names it too), the endpoint's
 * own filters as the code host names them, and the paging; the output, the items.
 */
export function repositoryListing<I extends z.ZodType>(def: {
  id: string;
  title: string;
  toolset: Toolset;
  description: string;
  permissions: StepPermissions;
  /** The request it pages through, as `METHOD /path/{owner}/{repo}...`. */
  route: string;
  item: () => I;
  filters?: () => z.ZodRawShape;
  scope?: typeof repoInput & z.ZodRawShape;
}) {
  const { route, item, filters, scope = repoInput, ...step } = def;
  return githubStep({
    ...step,
    output: () => listed(item()),
    input: () => {
      const schema: z.ZodType = z.strictObject({ ...scope, ...filters?.(), ...pageInput });
      // Typed by what the run reads (the repository and the paging); the filters are passed on
      // to the request as they are.
      return schema as z.ZodType<Listing>;
    },
    repositoryOf,
    run: pagesOf(route),
  });
}
