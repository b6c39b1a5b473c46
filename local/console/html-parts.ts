import { escapeHtml as h } from '../../shared/http/html';
import type { FieldProblem } from '../../shared/domain/errors';

/** The pieces every section of the console's page is built of; every value goes through `h`. */

export const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${h(csrf)}">`;

export const badge = (status: string, label = status.replace(/_/g, ' ')) => `<span class="badge s-${h(status)}">${h(label)}</span>`;

export const time = (ms: number | undefined) =>
  ms === undefined
    ? ''
    : `<time datetime="${h(new Date(ms).toISOString())}">${h(new Date(ms).toISOString().replace('T', ' ').slice(0, 19))} UTC</time>`;

/** A form the service refused: what was posted, and why (each problem names its field). */
export interface FormState {
  form: 'subscribe' | 'key' | 'connect';
  values: URLSearchParams;
  message: string;
  problems: FieldProblem[];
}

/** A refused form's problems for one field: the message under it, and the attributes that tie it to its control. */
export function fieldProblem(state: FormState | undefined, field: string, id: string): { attrs: string; html: string } {
  const messages = (state?.problems ?? []).filter((p) => p.field === field || p.field.startsWith(`${field}.`)).map((p) => p.message);
  if (messages.length === 0) return { attrs: '', html: '' };
  return {
    attrs: ` aria-invalid="true" aria-describedby="${h(id)}-error"`,
    html: `<small class="field-error" id="${h(id)}-error">${h(`${field}: ${messages.join('; ')}`)}</small>`,
  };
}

/** The refusal above a form, read out when it appears. */
export function formRefusal(state: FormState | undefined, form: FormState['form']): string {
  if (!state || state.form !== form) return '';
  return `<p class="notice bad" id="${h(form)}-error" role="alert">${h(state.message)}</p>`;
}

/** A labelled text field of a console form, showing what was posted and its problem. */
export function textField(
  state: FormState | undefined,
  form: FormState['form'],
  field: { name: string; label: string; hint?: string; required?: boolean; placeholder?: string; value?: string },
): string {
  const id = `${form}-${field.name.replace(/\./g, '-')}`;
  const posted = state?.form === form ? state.values.get(field.name) : null;
  const value = posted ?? field.value ?? '';
  const problem = fieldProblem(state?.form === form ? state : undefined, field.name.replace(/^filter\./, 'filters.'), id);
  return (
    `<div class="field"><label for="${h(id)}">${h(field.label)}${field.required ? ' *' : ''}</label>` +
    `<input type="text" id="${h(id)}" name="${h(field.name)}" value="${h(value)}"${field.required ? ' required' : ''}${field.placeholder ? ` placeholder="${h(field.placeholder)}"` : ''}${problem.attrs}>` +
    `${field.hint ? `<small>${h(field.hint)}</small>` : ''}${problem.html}</div>`
  );
}
