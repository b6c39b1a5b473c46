import * as z from 'zod';

/** A label as the code host's label answers give it. */
export const issueLabel = () =>
  z.object({
    id: z.number().int().optional(),
    name: z.string(),
    color: z.string().optional(),
    description: z.string().nullable().optional(),
    default: z.boolean().optional(),
  });

/** What the label steps answer: the issue's labels after the change, and their names. */
export const labelsAfter = () =>
  z.object({
    labels: z.array(issueLabel()).describe("The issue's labels after the change"),
    names: z.array(z.string()),
  });

export function withNames(labels: Array<{ name: string }>) {
  return { labels, names: labels.map((l) => l.name) };
}
