import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  appManifestEvents,
  appManifestPermissions,
  currentManifestGrants,
  manifestGrantsPath,
} from '../../shared/providers/github/app/manifest/manifest-grants';
import { permissionsForEvent } from '../../shared/domain/app-permissions';
import { triggerCatalog } from '../../shared/wiring/providers';
import { githubTriggerIds } from '../../shared/domain/triggers';
import { githubTools } from '../../shared/providers/github/tools';
import { appManifest } from '../../shared/providers/github/app/manifest/app-manifest';

/**
 * The GitHub App the manifest flow makes asks for what the tool steps and triggers declare, as
 * the guide's permission tables do: regenerate with `npm run guides`.
 */
describe("the GitHub App manifest's permissions and events", () => {
  it('are the ones the declarations generate today (npm run guides)', () => {
    expect(readFileSync(manifestGrantsPath, 'utf8')).toBe(currentManifestGrants());
    const manifest = appManifest({ publicUrl: 'https://agents.example', name: 'n' });
    expect(manifest.default_permissions).toEqual(appManifestPermissions());
    expect(manifest.default_events).toEqual(appManifestEvents());
  });

  it("hold every step's permission at its level, and never a hook permission (the App's events come to its own webhook)", () => {
    const permissions = appManifestPermissions();
    for (const step of githubTools.steps)
      for (const [name, level] of Object.entries(step.permissions.fineGrained ?? {}))
        expect(level === 'read' ? ['read', 'write'] : ['write'], `${step.id}: ${name}`).toContain(permissions[name]);
    expect(Object.keys(permissions)).not.toContain('repository_hooks');
    expect(Object.keys(permissions)).not.toContain('organization_hooks');
  });

  it("subscribe to every trigger's events, each under a permission GitHub delivers it with", () => {
    const permissions = appManifestPermissions();
    const events = appManifestEvents();
    for (const id of githubTriggerIds) expect(events).toEqual(expect.arrayContaining([...triggerCatalog[id].events]));
    for (const event of events) {
      const accepted = permissionsForEvent(event);
      expect(accepted.length === 0 || accepted.some((p) => permissions[p] !== undefined), event).toBe(true);
    }
    // What a trigger reads beyond its payload: a project column's cards.
    expect(permissions.repository_projects).toBe('read');
  });
});
