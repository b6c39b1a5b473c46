import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import type { GitHubClient } from '../octokit';
import { dryRun, githubStep, needs } from './common';

const nodeId = (what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_=-]{4,200}$/, 'must be a GraphQL node id')
    .describe(what);

const input = () =>
  z.strictObject({
    project_id: nodeId('Node id of the project (ProjectV2), e.g. PVT_kwDOA...'),
    item_id: nodeId('Node id of the item in the project, e.g. PVTI_lADOA...'),
    status: z.string().min(1).max(200).describe('Name of the status option to set, e.g. "In Progress" (not case sensitive)'),
    field_id: nodeId('Node id of the status field (default: the field named by `field_name`)').optional(),
    field_name: z
      .string()
      .min(1)
      .max(200)
      .default('Status')
      .describe('Name of the single-select field that holds the status (default "Status")'),
    dryRun,
  });

type Args = z.output<ReturnType<typeof input>>;
type Field = { id: string; name: string; options: { id: string; name: string }[] };

const fieldsQuery = `query ($project: ID!) {
  node(id: $project) {
    ... on ProjectV2 {
      id
      title
      fields(first: 100) { nodes { ... on ProjectV2SingleSelectField { id name options { id name } } } }
    }
  }
}`;

const setStatus = `mutation ($project: ID!, $item: ID!, $field: ID!, $option: String!) {
  updateProjectV2ItemFieldValue(input: {projectId: $project, itemId: $item, fieldId: $field, value: {singleSelectOptionId: $option}}) {
    projectV2Item { id }
  }
}`;

/** The status field and the option to set, looked up by name when ids were not given. */
async function resolveTarget(client: GitHubClient, args: Args): Promise<{ field: string; option: string; optionName: string }> {
  const answer = await client.graphql<{ node: { fields?: { nodes: (Partial<Field> | null)[] } } | null }>(fieldsQuery, {
    project: args.project_id,
  });
  if (!answer.node?.fields)
    throw new AppError('not_found', `Project ${args.project_id} was not found (or is not a ProjectV2 the connection can see)`);
  const fields = answer.node.fields.nodes.filter((f): f is Field => Boolean(f?.id && f.options));
  const field = args.field_id
    ? fields.find((f) => f.id === args.field_id)
    : fields.find((f) => f.name.toLowerCase() === args.field_name.toLowerCase());
  if (!field) {
    throw new AppError('not_found', `The project has no single-select field ${args.field_id ?? `named "${args.field_name}"`}`, {
      fields: fields.map((f) => f.name),
    });
  }
  const option = field.options.find((o) => o.name.toLowerCase() === args.status.toLowerCase());
  if (!option) {
    throw new AppError('invalid_input', `"${args.status}" is not an option of the field "${field.name}"`, {
      fields: [{ field: 'input.status', message: `must be one of: ${field.options.map((o) => o.name).join(', ')}` }],
      options: field.options,
    });
  }
  return { field: field.id, option: option.id, optionName: option.name };
}

export const updateProjectV2ItemStatus = githubStep({
  id: 'github.update_project_v2_item_status',
  title: 'Update Project (V2) Item Status',
  toolset: 'projects',
  description:
    "Sets the status of an item (issue or pull request card) in a project, through the code host's GraphQL mutation updateProjectV2ItemFieldValue. Give the status by name; the field and option ids are looked up first.",
  output: () =>
    z.object({
      item_id: z.string(),
      field_id: z.string(),
      option_id: z.string(),
      status: z.string().describe('The option name as the project spells it'),
    }),
  permissions: needs({ organization_projects: 'write' }, 'project'),
  input,
  destructive: true,
  async run(args, client) {
    const target = await resolveTarget(client, args);
    const variables = { project: args.project_id, item: args.item_id, field: target.field, option: target.option };
    const result = { item_id: args.item_id, field_id: target.field, option_id: target.option, status: target.optionName };
    if (args.dryRun) return { dryRun: true, request: { method: 'POST', url: 'graphql', body: { query: setStatus, variables } }, ...result };
    await client.graphql(setStatus, variables);
    return result;
  },
});
