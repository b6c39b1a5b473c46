import { InvalidInputError, type FieldProblem } from '../../shared/domain/errors';

/**
 * A tool step's form, generated from its input JSON Schema (GET /tools): one field per
 * property, of a kind a person can fill, and the way back from the posted fields to the
 * step's input. The step's own zod schema still validates what comes out (invokeTool).
 */
export type FieldKind = 'string' | 'enum' | 'number' | 'integer' | 'boolean' | 'string_list' | 'scalar' | 'json';

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: string[];
  /** For `scalar` (anyOf of plain types): the JSON types accepted. */
  types?: string[];
  defaultValue?: unknown;
}

type JsonSchema = Record<string, unknown>;

function kindOf(s: JsonSchema): Pick<FormField, 'kind' | 'options' | 'types'> {
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string')) return { kind: 'enum', options: s.enum as string[] };
  if (s.type === 'string') return { kind: 'string' };
  if (s.type === 'integer') return { kind: 'integer' };
  if (s.type === 'number') return { kind: 'number' };
  if (s.type === 'boolean') return { kind: 'boolean' };
  if (s.type === 'array' && (s.items as JsonSchema | undefined)?.type === 'string') return { kind: 'string_list' };
  const anyOf = s.anyOf as JsonSchema[] | undefined;
  const scalar = ['string', 'integer', 'number', 'boolean', 'null'];
  if (anyOf?.every((a) => typeof a.type === 'string' && scalar.includes(a.type)))
    return { kind: 'scalar', types: anyOf.map((a) => a.type as string) };
  return { kind: 'json' };
}

export function formFields(inputSchema: JsonSchema): FormField[] {
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((inputSchema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    required: required.has(name),
    ...kindOf(s),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    ...(s.default !== undefined ? { defaultValue: s.default } : {}),
  }));
}

/** The form's parameter name of a property (apart from the form's own fields). */
export const fieldParam = (name: string) => `in.${name}`;

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * The step's input from the posted form: empty fields are left out (the step's defaults
 * apply); numbers and booleans converted; string lists split on commas and new lines;
 * JSON fields parsed (a parse error names the field). Anything that still does not fit is
 * left as typed, for the step's schema to refuse with the field named.
 */
export function inputFromForm(fields: readonly FormField[], form: URLSearchParams): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  for (const f of fields) {
    const raw = form.get(fieldParam(f.name));
    if (raw === null || raw.trim() === '') continue;
    const text = f.kind === 'string' ? raw : raw.trim();
    switch (f.kind) {
      case 'string':
      case 'enum':
        input[f.name] = text;
        break;
      case 'integer':
      case 'number':
        input[f.name] = Number.isFinite(Number(text)) ? Number(text) : text;
        break;
      case 'boolean':
        input[f.name] = text === 'true' ? true : text === 'false' ? false : text;
        break;
      case 'string_list':
        input[f.name] = text
          .split(/[,\n]/)
          .map((s) => s.trim())
          .filter((s) => s !== '');
        break;
      case 'scalar': {
        let value: unknown = text;
        try {
          const parsed = JSON.parse(text) as unknown;
          if (f.types?.includes(jsonType(parsed)) || (jsonType(parsed) === 'integer' && f.types?.includes('number'))) value = parsed;
        } catch {
          // Not JSON: a plain string.
        }
        input[f.name] = value;
        break;
      }
      case 'json':
        try {
          input[f.name] = JSON.parse(text) as unknown;
        } catch {
          problems.push({ field: `input.${f.name}`, message: 'is not valid JSON' });
        }
        break;
    }
  }
  if (problems.length > 0) throw new InvalidInputError(problems);
  return input;
}
