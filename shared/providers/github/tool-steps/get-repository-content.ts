import * as z from 'zod';
import { gitRef, githubStep, repoInput, repoPath, repositoryOf, needs } from './common';
import { contentEntry } from './outputs';

const input = () =>
  z.strictObject({
    ...repoInput,
    path: repoPath.default(''),
    ref: gitRef('Branch, tag or commit to read from (default: the default branch)').optional(),
  });

type Entry = { type?: string; encoding?: string; content?: string };

/** Text files up to this size are also returned decoded, so an agent need not decode base64. */
const maxDecodedBytes = 1024 * 1024;

function withText(entry: Entry) {
  if (entry.type !== 'file' || entry.encoding !== 'base64' || typeof entry.content !== 'string') return entry;
  const bytes = Buffer.from(entry.content, 'base64');
  if (bytes.length > maxDecodedBytes || bytes.includes(0)) return entry;
  return { ...entry, text: bytes.toString('utf8') };
}

export const getRepositoryContent = githubStep({
  id: 'github.get_repository_content',
  title: 'Get Repository Content',
  toolset: 'repos',
  description: 'Returns the files and folders at a path of a repository (a folder listing), or one file with its content.',
  output: () =>
    z.union([
      z.object({
        type: z.literal('dir'),
        path: z.string(),
        entries: z.array(contentEntry()),
      }),
      contentEntry().extend({
        encoding: z.string().optional(),
        content: z.string().optional().describe('The file content in base64 (files up to 1 MB)'),
        text: z.string().optional().describe('The decoded content, for text files up to 1 MB'),
        target: z.string().optional().describe('Where a symlink points'),
        submodule_git_url: z.string().optional().describe('The repository of a submodule'),
      }),
    ]),
  permissions: needs({ contents: 'read' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/contents/{path}', args);
    if (Array.isArray(data)) return { type: 'dir', path: args.path, entries: data };
    return withText(data as Entry);
  },
});
