import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldProblems } from '../../shared/domain/validation';

describe('fieldProblems', () => {
  const schema = z.strictObject({ owner: z.string(), issue_number: z.number().int(), labels: z.array(z.string()).optional() });
  const problems = (value: unknown) => {
    const r = schema.safeParse(value);
    if (r.success) throw new Error('expected a failure');
    return fieldProblems(r.error, 'input');
  };

  it('says a missing field is required, naming its type', () => {
    expect(problems({ owner: 'o' })).toEqual([{ field: 'input.issue_number', message: 'is required (number)' }]);
  });

  it('keeps the type error for a field of the wrong type', () => {
    expect(problems({ owner: 1, issue_number: 2 })).toEqual([
      { field: 'input.owner', message: 'Invalid input: expected string, received number' },
    ]);
  });

  it('names nested fields by their path and unknown keys by name', () => {
    const found = problems({ owner: 'o', issue_number: 1, labels: ['a', 2], lables: [] });
    expect(found).toContainEqual({ field: 'input.labels.1', message: 'Invalid input: expected string, received number' });
    expect(found.some((p) => p.field === 'input' && p.message.includes('lables'))).toBe(true);
  });
});
