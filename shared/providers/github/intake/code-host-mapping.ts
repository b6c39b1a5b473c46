import { mapDelivery } from '../mapping/map-delivery';
import { misfitKeys } from '../mapping/subject-guard';
import type { PayloadMapping } from '../../../intake/intake-source';

/** The code host's deliveries, mapped from the body alone: the `"<event>.<action>"` table and the subject guard. */
export const codeHostMapping: PayloadMapping = { misfitKeys, map: mapDelivery };
