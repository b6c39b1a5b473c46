import type { MapInput, MappedEvent } from '../../../domain/mapping/types';
import { fitsEvent } from './subject-guard';
import { mappingTable } from './table';

/**
 * A webhook delivery -> the trigger occurrences it means. Pure: no I/O, never throws for
 * outside input. `ping`, unknown events and actions, and bodies whose shape does not fit the
 * event named by the header map to [].
 */
export function mapDelivery(input: MapInput): MappedEvent[] {
  const payload = input.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return [];
  if (!fitsEvent(input.event, payload as Record<string, unknown>)) return [];
  const action = actionOf(input.payload);
  const key = action === undefined ? input.event : `${input.event}.${action}`;
  const mappers = mappingTable.get(key) ?? [];
  const ctx = { event: input.event, accountLogin: input.accountLogin, ...(action === undefined ? {} : { action }) };
  return mappers.flatMap((mapper) => mapper(input.payload, ctx));
}

function actionOf(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const action = (payload as Record<string, unknown>).action;
  return typeof action === 'string' ? action : undefined;
}
