import * as z from 'zod';
import { defined, describeRequest, dryRun, githubStep, needs } from './common';
import { gist } from './outputs';
import { fileCount, fileName, gistId, maxGistFiles } from './gist-files';

const change = z
  .strictObject({
    content: z
      .string()
      .min(1)
      .max(10 * 1024 * 1024)
      .optional()
      .describe('New content'),
    filename: fileName.optional().describe('New name for the file'),
  })
  .refine((v) => v.content !== undefined || v.filename !== undefined, 'give content or filename (or null to delete the file)');

const input = () =>
  z.strictObject({
    gist_id: gistId,
    description: z.string().max(1024).optional().describe('New description'),
    files: z
      .record(fileName, change.nullable())
      .refine(fileCount, `give between 1 and ${maxGistFiles} files`)
      .optional()
      .describe(
        'Changes by current file name: {"a.md": {"content": "..."}} updates or adds a file, {"old.md": {"filename": "new.md"}} renames, {"gone.md": null} deletes. Files not named stay as they are.',
      ),
    dryRun,
  });

export const updateGist = githubStep({
  id: 'github.update_gist',
  title: 'Update Gist',
  toolset: 'gists',
  description:
    'Updates a gist: its description, and files to change, add, rename or delete (null). Files not named are kept; with nothing to change nothing is written and the gist is returned as it is.',
  output: gist,
  permissions: needs({ gists: 'write' }, 'gist'),
  input,
  destructive: true,
  async run({ dryRun: dry, ...args }, client) {
    const params = defined(args);
    if (params.description === undefined && params.files === undefined) {
      return (await client.request('GET /gists/{gist_id}', { gist_id: params.gist_id })).data;
    }
    if (dry) return describeRequest(client, 'PATCH /gists/{gist_id}', params);
    // Octokit's types lack the documented `null` that deletes a file; the request is the documented one.
    const { data } = await client.request(
      'PATCH /gists/{gist_id}',
      params as Parameters<typeof client.request<'PATCH /gists/{gist_id}'>>[1],
    );
    return data;
  },
});
