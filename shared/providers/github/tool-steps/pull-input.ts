import * as z from 'zod';
import { positiveInt, repoInput } from './common';

/** The input every pull-request step starts from: the repository and the pull request's number. */
export const pullNumber = positiveInt('The number that identifies the pull request');
export const pullInput = { ...repoInput, pull_number: pullNumber };

/** A commit named by its full SHA, as the code host compares a head with it. */
export const commitSha = (what: string) =>
  z
    .string()
    .regex(/^[0-9a-f]{40}$/, 'must be a full 40-character commit SHA')
    .describe(what);
