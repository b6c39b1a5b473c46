import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../shared/tools/catalog';
import { allProviderTools } from '../../shared/wiring/provider-tools';

// The catalog of `GET /tools` as saved (input and output schemas, permissions): building the
// schemas on first use, in whatever order, must not change a byte of what callers see.
// Regenerate after a deliberate change of a step's schemas: `npx tsx test/fixtures/write-tool-catalog.ts`.
const saved = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/tool-catalog.json'), 'utf8')) as unknown;

describe('tool catalog', () => {
  it('answers the same JSON as the saved catalog', () => {
    expect(JSON.parse(JSON.stringify({ tools: catalog(allProviderTools()) }))).toEqual(saved);
  });

  it('answers the same JSON after a step was invoked first (schemas built in another order)', () => {
    const [first] = allProviderTools();
    first!.steps.at(-1)!.input.safeParse({});
    expect(JSON.parse(JSON.stringify({ tools: catalog(allProviderTools()) }))).toEqual(saved);
  });
});

describe('tool step schemas', () => {
  it('are built on first read, once, not when the steps are loaded (cold start)', () => {
    for (const provider of allProviderTools()) {
      for (const step of provider.steps) {
        expect(typeof Object.getOwnPropertyDescriptor(step, 'input')?.get, step.id).toBe('function');
        expect(typeof Object.getOwnPropertyDescriptor(step, 'output')?.get, step.id).toBe('function');
        expect(step.input).toBe(step.input);
        expect(step.output).toBe(step.output);
      }
    }
  });
});
