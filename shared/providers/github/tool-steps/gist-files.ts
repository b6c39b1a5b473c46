import * as z from 'zod';

export const gistId = z
  .string()
  .regex(/^[A-Za-z0-9]{1,64}$/, 'must be a gist id')
  .describe('The id of the gist');

export const fileName = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (v) => !v.includes('/') && !/^gistfile\d+$/.test(v),
    'must be a file name without "/" (and not gistfileN, which the code host reserves)',
  );

export const maxGistFiles = 300;

export const fileCount = (v: Record<string, unknown>) => Object.keys(v).length > 0 && Object.keys(v).length <= maxGistFiles;
