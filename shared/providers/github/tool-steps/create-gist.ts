import * as z from 'zod';
import { defined, githubStep, needs } from './common';
import { gist } from './outputs';
import { fileCount, fileName, maxGistFiles } from './gist-files';

const input = () =>
  z.strictObject({
    description: z.string().max(1024).optional().describe('A description of the gist'),
    public: z.boolean().default(false).describe('Whether the gist is public (default: secret)'),
    files: z
      .record(
        fileName,
        z.strictObject({
          content: z
            .string()
            .min(1)
            .max(10 * 1024 * 1024)
            .describe('The file content'),
        }),
      )
      .refine(fileCount, `give between 1 and ${maxGistFiles} files`)
      .describe('The files, by name: {"notes.md": {"content": "..."}}'),
  });

export const createGist = githubStep({
  id: 'github.create_gist',
  title: 'Create Gist',
  toolset: 'gists',
  description: 'Creates a gist with one or more files. Gists are secret unless `public` is true.',
  output: gist,
  permissions: needs({ gists: 'write' }, 'gist'),
  input,
  async run(args, client) {
    const { data } = await client.request('POST /gists', defined(args));
    return data;
  },
});
