import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

type Json = Record<string, any>;

/** One answer as a client saw it. */
export interface SeenAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface AnswerChecker {
  /**
   * Checks `answer` of `METHOD /pattern/{param}` against the document: the status is one it
   * names, and the body is valid under the schema of its media type. Returns the problems
   * (empty: it holds) and marks the (operation, status) as seen.
   */
  check(method: string, path: string, answer: SeenAnswer): string[];
  /** Operations of the document no checked answer came from. */
  unexercised(): string[];
  /** `METHOD path status` of every answer checked. */
  seen(): string[];
}

/**
 * Real answers against the OpenAPI document, with a JSON Schema 2020-12 validator (ajv):
 * each schema compiled with the document's components beside it, so its `$ref`s resolve.
 */
export function answerChecker(document: Json): AnswerChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const compiled = new Map<string, ValidateFunction>();
  const seen = new Set<string>();
  const validator = (key: string, schema: Json) => {
    let v = compiled.get(key);
    if (!v) {
      v = ajv.compile({ ...schema, components: document.components });
      compiled.set(key, v);
    }
    return v;
  };
  return {
    check(method, path, answer) {
      const operation = document.paths?.[path]?.[method.toLowerCase()];
      if (!operation) return [`${method} ${path} is not in the document`];
      const label = `${method.toUpperCase()} ${path} ${answer.status}`;
      const response = operation.responses[String(answer.status)] ?? operation.responses[`${String(answer.status)[0]}XX`];
      if (!response) return [`${label}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
      seen.add(label);
      const content = response.content as Json | undefined;
      const text = answer.body === undefined ? '' : String(answer.body);
      if (!content) return text === '' ? [] : [`${label}: a body where the document names none: ${text.slice(0, 200)}`];
      const type = (answer.headers?.['content-type'] ?? '').split(';')[0]?.trim() ?? '';
      const media = content[type];
      if (!media) return [`${label}: content-type "${type}" not documented (documented: ${Object.keys(content).join(', ')})`];
      let value: unknown = text;
      if (type === 'application/json') {
        try {
          value = JSON.parse(text);
        } catch {
          return [`${label}: not JSON: ${text.slice(0, 200)}`];
        }
      }
      const validate = validator(`${path} ${method} ${answer.status} ${type}`, media.schema);
      if (validate(value)) return [];
      return (validate.errors ?? []).map((e) => `${label}: ${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
    },
    unexercised() {
      const ops = Object.entries(document.paths as Json).flatMap(([path, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
      );
      const done = new Set([...seen].map((s) => s.split(' ').slice(0, 2).join(' ')));
      return ops.filter((op) => !done.has(op));
    },
    seen: () => [...seen],
  };
}
