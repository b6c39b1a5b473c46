import { closest } from './did-you-mean';
import { isTriggerId, triggerIds, type TriggerId } from './triggers';

/**
 * A trigger id as a person types it: the full id (`github.new_issue`), or the name alone
 * (`new_issue`) when exactly one trigger of the catalog carries it, so that the API and
 * `npm run trigger` take the same spellings. A name two providers share is not guessed.
 */
export function resolveTriggerId(given: string): TriggerId | undefined {
  const text = given.trim();
  if (isTriggerId(text)) return text;
  if (text === '' || text.includes('.')) return undefined;
  const hits = triggerIds.filter((id) => id.slice(id.indexOf('.') + 1) === text);
  return hits.length === 1 ? hits[0] : undefined;
}

/**
 * Why a trigger id is refused: the nearest ids when some are near (the catalog is at
 * GET /triggers), otherwise every id, once.
 */
export function unknownTriggerMessage(given: string): string {
  const near = closest(given, triggerIds);
  if (near.length > 0) return `unknown trigger. Did you mean ${near.join(' or ')}? GET /triggers lists every trigger`;
  return `unknown trigger. Expected one of ${triggerIds.join(', ')}`;
}
