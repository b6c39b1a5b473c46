import * as z from 'zod';

/** A workflow by its numeric id or its file name (e.g. ci.yml), as the code host accepts both. */
export const workflowId = z
  .union([
    z.number().int().positive(),
    z.string().regex(/^(?:\d+|[A-Za-z0-9_.-]+\.ya?ml)$/, 'must be the workflow id or its file name, e.g. ci.yml'),
  ])
  .describe('The workflow id, or its file name such as ci.yml');
