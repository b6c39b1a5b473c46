import { positiveInt, repoInput } from './common';

/** The input every pull-request step starts from: the repository and the pull request's number. */
export const pullNumber = positiveInt('The number that identifies the pull request');
export const pullInput = { ...repoInput, pull_number: pullNumber };
