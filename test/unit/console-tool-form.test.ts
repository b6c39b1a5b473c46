import { describe, expect, it } from 'vitest';
import { formFields, inputFromForm } from '../../local/console/tool-form';
import { catalog } from '../../shared/tools/catalog';
import { allProviderTools } from '../../shared/wiring/provider-tools';

const tools = catalog(allProviderTools());
const schemaOf = (id: string) => tools.find((t) => t.id === id)!.inputSchema;
const form = (fields: Record<string, string>) =>
  new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [`in.${k}`, v]));

describe('console tool forms from the input JSON Schema', () => {
  it('give every property of every step a field of a kind a person can fill', () => {
    for (const t of tools) {
      const fields = formFields(t.inputSchema);
      expect(fields.map((f) => f.name)).toEqual(Object.keys((t.inputSchema.properties ?? {}) as object));
    }
    const kinds = Object.fromEntries(formFields(schemaOf('github.create_issue')).map((f) => [f.name, f.kind]));
    expect(kinds).toMatchObject({ owner: 'string', title: 'string', labels: 'string_list', milestone: 'integer' });
    expect(formFields(schemaOf('github.update_issue')).find((f) => f.name === 'state')).toMatchObject({
      kind: 'enum',
      options: ['open', 'closed'],
    });
    expect(formFields(schemaOf('github.api_call')).find((f) => f.name === 'body')?.kind).toBe('json');
  });

  it('turn the posted fields into the step input its schema accepts', () => {
    const fields = formFields(schemaOf('github.create_issue'));
    const input = inputFromForm(
      fields,
      form({ owner: 'octo', repo: 'hello', title: 'Hi', body: '', labels: 'bug, help wanted\nui', milestone: '3' }),
    );
    expect(input).toEqual({ owner: 'octo', repo: 'hello', title: 'Hi', labels: ['bug', 'help wanted', 'ui'], milestone: 3 });
    const step = allProviderTools()
      .flatMap((p) => p.steps)
      .find((s) => s.id === 'github.create_issue')!;
    expect(step.input.safeParse(input).success).toBe(true);
  });

  it('parse anyOf scalars and JSON fields, and name a field whose JSON does not parse', () => {
    const dispatch = formFields(schemaOf('github.create_workflow_dispatch'));
    expect(inputFromForm(dispatch, form({ workflow_id: '42' })).workflow_id).toBe(42);
    expect(inputFromForm(dispatch, form({ workflow_id: 'ci.yml', inputs: '{"a":"b"}' }))).toMatchObject({
      workflow_id: 'ci.yml',
      inputs: { a: 'b' },
    });
    expect(() => inputFromForm(dispatch, form({ inputs: '{nope' }))).toThrow(/input\.inputs: is not valid JSON/);
  });
});
