import * as z from 'zod';
import { gitRef, githubStep, repoInput, repoPath, repositoryOf } from './common';

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
  description: 'Returns the files and folders at a path of a repository (a folder listing), or one file with its content.',
  outputDescription:
    'For a folder: {type: "dir", entries: [{type, name, path, sha, size, ...}]}. For a file: the code host\'s file object (name, path, sha, size, encoding, content in base64) plus `text`, the decoded content, for text files up to 1 MB.',
  input,
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/contents/{path}', args);
    if (Array.isArray(data)) return { type: 'dir', path: args.path, entries: data };
    return withText(data as Entry);
  },
});
