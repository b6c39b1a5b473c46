import * as z from 'zod';
import { ConditionFailedError } from '../../../../domain/errors';
import type { Clock, Item, Store } from '../../../../ports';
import { stateHash } from '../../../../oauth/pkce';
import { keys, ttlIn } from '../../../../store/table-design';

/**
 * The manifest flow's state: kept as the OAuth states are (only its SHA-256 is a key, 10
 * minutes, taken by a conditional delete so it works once), in their item family, with a shape
 * of its own that an OAuth flow never reads as one of its states.
 */
export interface ManifestState {
  /** The App's name GitHub's page starts with (the person may change it there). */
  name: string;
  /** The organization that will own the App; none: the person's own account. */
  organization?: string;
  expiresAt: number;
}

const itemSchema = z.object({
  flow: z.literal('github-app-manifest'),
  name: z.string(),
  organization: z.string().optional(),
  expiresAt: z.number(),
  /** Set when the page that posts the manifest was served: it is served once. */
  opened: z.boolean().optional(),
  version: z.number(),
});

function live(item: unknown, clock: Clock): z.infer<typeof itemSchema> | undefined {
  const parsed = itemSchema.safeParse(item);
  // The ttl has second granularity and DynamoDB deletes late: the exact expiry decides.
  return parsed.success && parsed.data.expiresAt > clock.now() ? parsed.data : undefined;
}

function toState(item: z.infer<typeof itemSchema>): ManifestState {
  return { name: item.name, expiresAt: item.expiresAt, ...(item.organization ? { organization: item.organization } : {}) };
}

export async function saveManifestState(store: Store, state: string, record: ManifestState): Promise<void> {
  await store.put(
    { ...keys.oauthState(stateHash(state)), flow: 'github-app-manifest', ...record, version: 1, ttl: ttlIn(record.expiresAt, 1) },
    { ifNotExists: true },
  );
}

/**
 * The state, marked as opened, for the page that posts the manifest: once, so a link opened a
 * second time does not make a second App that no callback could keep.
 */
export async function openManifestState(store: Store, clock: Clock, state: string): Promise<ManifestState | undefined> {
  const key = keys.oauthState(stateHash(state));
  const item = await store.get<Item>(key, { consistent: true });
  const record = live(item, clock);
  if (!item || !record || record.opened) return undefined;
  try {
    await store.put({ ...item, ...key, opened: true, version: record.version + 1 }, { ifVersion: record.version });
  } catch (e) {
    if (e instanceof ConditionFailedError) return undefined;
    throw e;
  }
  return toState(record);
}

/** Takes the state (conditional delete): exactly one caller gets it, and only an opened, unexpired one. */
export async function consumeManifestState(store: Store, clock: Clock, state: string): Promise<ManifestState | undefined> {
  let item: Item | undefined;
  try {
    item = await store.delete<Item>(keys.oauthState(stateHash(state)), { ifExists: true });
  } catch (e) {
    if (e instanceof ConditionFailedError) return undefined;
    throw e;
  }
  const record = live(item, clock);
  return record?.opened ? toState(record) : undefined;
}
