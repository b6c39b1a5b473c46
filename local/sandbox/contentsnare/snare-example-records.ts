import { allSnareExampleRecords } from '../../../shared/providers/contentsnare/triggers/examples';
import type { SimulatedContentSnare } from './simulated-contentsnare';

/**
 * The simulated service holds the records the documented examples name, so that
 * `npm run trigger -- contentsnare.<event>` sends a delivery that reads back as it says
 * (the intake believes nothing a delivery claims until the API confirms it).
 */
export function holdSnareExampleRecords(service: Pick<SimulatedContentSnare, 'state' | 'webhooks'>): void {
  for (const records of allSnareExampleRecords()) {
    for (const r of records.requests ?? []) service.state.requests.set(String(r.id), structuredClone(r));
    for (const c of records.clients ?? []) service.state.clients.set(String(c.id), structuredClone(c));
    for (const p of records.pages ?? []) service.webhooks.pages.set(String(p.id), structuredClone(p));
  }
}
