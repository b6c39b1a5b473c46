import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The dependency rule of the source tree, bottom layer first. A file may import its own
 * folder and the folders of LOWER layers, never a folder of its own layer or a higher one:
 * use cases depend on the domain, the ports and the records, and only the wiring (with the
 * functions and the local runtime above it) knows everything; the stack, the test helpers,
 * the benchmarks and the scripts sit on top. A new folder must be given a layer here before
 * it can be imported. `functions/*` is one folder per function, and functions do not import
 * each other. Outside `shared/` and `functions/`, each sub-folder is a folder of its own
 * (`local/cli` is not `local`), and files directly under `local/` are the folder `local`.
 */
const layers: readonly (readonly string[])[] = [
  ['shared/domain', 'shared/types'], // the model, its rules and pure mapping tables; no I/O
  ['shared/config', 'shared/observability'], // settings read from the environment; logs and metrics
  ['shared/ports'], // what the code needs from outside: store, queue, secrets, clock, AppContext, tokens
  ['shared/store'], // the single table's design and its records (connections, subscriptions, endpoints, tokens, leases)
  ['shared/http', 'shared/adapters'], // outbound/inbound HTTP plumbing; the AWS and embedded adapters of the ports
  ['shared/oauth', 'shared/tools', 'shared/keys'], // OAuth providers, tokens and refresh grant; the tool-step contract; scoped API keys
  ['shared/work'], // work items a planner sends and workers take (the poller's and the sweep's): their envelope and the rotating order
  ['shared/providers/*'], // each provider's room: clients, token rules, tool steps, webhooks (`shared/providers/<p>/`)
  ['shared/dispatch', 'shared/sweep'], // fan-out to the queue and delivery to the agent; the redelivery sweep
  ['shared/providers/*/sweep'], // a provider's swept hooks
  ['shared/providers/*/dispatch'], // a provider's own work that dispatch takes through its ports: the code host's follow-ups and App lifecycle job, the collection service's read-back job
  ['shared/intake', 'shared/polling'], // webhook intake; polled triggers
  ['shared/providers/*/intake', 'shared/providers/*/polling'], // a provider's intake sources and poll sources
  ['shared/subscriptions'], // creating and deleting subscriptions; the hook-manager seam
  ['shared/providers/*/subscriptions'], // a provider's hook manager and its place in the provider contract
  ['shared/events'], // the event history as the platform API serves it: listing, one event, replay
  ['shared/connections'], // creating, updating and disconnecting connections
  ['shared/connect'], // the connect page of the platform's end users: its sessions, page and choices
  ['shared/mcp'], // the tool catalog and the triggers over the Model Context Protocol
  ['shared/wiring'], // builds a role's context from the adapters: AWS (Lambda) and local
  ['functions/*'], // one Lambda function per folder: handler, routes, deps (the only reader of the environment)
  ['local/admin', 'local/sandbox'], // operator tooling (dead letters, example deliveries); the simulated services of `npm run dev` (each provider's in `local/sandbox/<p>/`)
  ['local/console'], // the console at `/` of the local runtime
  ['local'], // the local runtime (`npm start`): server, routes, background jobs, data dir
  ['local/cli'], // the CLIs: `npm run dlq`, `npm run trigger`, `npm run doctor`
  ['infra/bundling', 'infra/constructs'], // how a function is bundled; the stack's constructs
  ['infra'], // the CDK app and its settings
  ['test/helpers'], // the suite's fakes, contexts and callers (re-exporting the sandbox's simulated services)
  ['bench/lib'], // what the benchmarks share: load, receipts, floors, reports
  ['bench', 'scripts'], // the benchmarks; operator scripts (advisories, screenshots)
];

/** Besides the layers: inside a function, only its `deps.ts` builds the context. */
const onlyDepsImportWiring = (file: string, target: string) =>
  file.startsWith('functions/') && !file.endsWith('/deps.ts') && folderOf(target) === 'shared/wiring';

/**
 * And only the programs' edges read the environment: a function's `deps.ts`, the local
 * runtime and its CLIs, the stack's settings, the test helpers, benchmarks and scripts.
 * Everything in `shared/` and the rest of `functions/` is given its config.
 */
const mayReadEnvironment = (file: string) =>
  file.endsWith('/deps.ts') || file === 'infra/settings.ts' || /^(local|test|bench|scripts)\//.test(file);

/**
 * The core takes the providers through their contract (`AppContext.providers`), never by
 * importing a provider's room: only the wiring, a function's `deps.ts` and the local
 * runtime's files that assemble the providers do.
 */
const isCore = (file: string) =>
  (file.startsWith('shared/') && !file.startsWith('shared/providers/') && !file.startsWith('shared/wiring/')) ||
  (file.startsWith('functions/') && !file.endsWith('/deps.ts')) ||
  (file.startsWith('local/') && !assemblesProviders.has(file));
const assemblesProviders = new Set<string>([]);

/**
 * A provider's simulator in the sandbox (`local/sandbox/<p>/`) is that provider's room too: it
 * may import its own provider's room (the examples' records it holds), never another's.
 */
const ownSandboxRoom = (file: string, target: string) => {
  const room = sandboxRoomOf(file);
  return room !== undefined && target.startsWith(`shared/providers/${room}/`);
};

/**
 * Core files that still import a provider's room, each to be taken through the contract (or
 * moved into its room) in turn; the list only shrinks.
 */
const notYetThroughTheContract = new Set(['functions/oauth/route-table.ts', 'functions/oauth/routes.ts']);

const root = join(import.meta.dirname, '../..');
const sourceRoots = ['shared', 'functions', 'local', 'infra', 'test/helpers', 'bench', 'scripts'];

/**
 * `shared/http/router.ts` -> `shared/http`; `shared/providers/github/tools.ts` -> `shared/providers/github`; `functions/oauth/x.ts` -> `functions/oauth`;
 * `local/cli/dlq.ts` -> `local/cli`; `local/main.ts` -> `local`; `test/helpers/x/y.ts` -> `test/helpers`.
 */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'shared' && parts[1] === 'providers') return providerFolderOf(parts);
  if (parts[0] === 'shared' || parts[0] === 'functions' || parts[0] === 'test') return `${parts[0]}/${parts[1]}`;
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

/**
 * A provider's room is `shared/providers/<p>/`: its root and most sub-folders sit at the
 * providers' layer, and a sub-folder named for a core seam (`intake/`, `polling/`, ...) sits at
 * the layer named for it, so that it may use that seam. `<p>` is a folder of its own: one
 * provider never imports another.
 */
const seamRooms = new Set(['dispatch', 'sweep', 'intake', 'polling', 'subscriptions']);

function providerFolderOf(parts: readonly string[]): string {
  if (parts.length <= 3) return 'shared/providers';
  const room = `shared/providers/${parts[2]}`;
  return parts.length > 4 && seamRooms.has(parts[3] as string) ? `${room}/${parts[3]}` : room;
}

/** `shared/providers/github/intake` -> `shared/providers/*\/intake`; `functions/oauth` -> `functions/*`. */
function layerPattern(folder: string): string {
  if (folder.startsWith('functions/')) return 'functions/*';
  return folder.replace(/^shared\/providers\/[^/]+/, 'shared/providers/*');
}

/** The provider whose sandbox room holds a file (`local/sandbox/<p>/...`), if any. */
function sandboxRoomOf(file: string): string | undefined {
  return /^local\/sandbox\/([^/]+)\//.exec(file)?.[1];
}

function layerOf(folder: string): number {
  const pattern = layerPattern(folder);
  return layers.findIndex((layer) => layer.includes(pattern));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = posix.join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative specifiers of static imports, re-exports and dynamic imports. */
function importsOf(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1] as string);
}

/** Source without comments, so that a comment may name what the code must not do. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function resolveImport(file: string, spec: string): string {
  const base = relative(root, join(root, dirname(file), spec))
    .split('\\')
    .join('/');
  return [`${base}.ts`, `${base}/index.ts`, `${base}.d.ts`, base].find((p) => existsSync(join(root, p))) ?? base;
}

const files = sourceRoots.flatMap(sourceFiles);
const edges = files.flatMap((file) =>
  importsOf(readFileSync(join(root, file), 'utf8')).map((spec) => ({ file, target: resolveImport(file, spec) })),
);

/** Each group of files that import one another round a circle (Tarjan's strongly connected components). */
function importCircles(graph: readonly { file: string; target: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { file, target } of graph) next.set(file, [...(next.get(file) ?? []), target]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) circles.push(group.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return circles;
}

describe('dependency rule: imports point down the layers', () => {
  it('every source folder has a layer', () => {
    const unplaced = [...new Set(files.map(folderOf))].filter((folder) => layerOf(folder) < 0);
    expect(unplaced).toEqual([]);
  });

  it('no file imports a folder of its own layer or a higher one', () => {
    const offences = edges
      .filter(({ file, target }) => folderOf(file) !== folderOf(target) && layerOf(folderOf(target)) >= layerOf(folderOf(file)))
      .map(({ file, target }) => `${file} -> ${target} (${folderOf(file)} may not import ${folderOf(target)})`);
    expect(offences).toEqual([]);
  });

  it("no core file imports a provider's room: the core takes providers through the contract", () => {
    const offences = edges
      .filter(
        ({ file, target }) =>
          isCore(file) && !notYetThroughTheContract.has(file) && !ownSandboxRoom(file, target) && target.startsWith('shared/providers/'),
      )
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(offences).toEqual([]);
    const stillImporting = new Set(
      edges
        .filter(({ file, target }) => isCore(file) && !ownSandboxRoom(file, target) && target.startsWith('shared/providers/'))
        .map((e) => e.file),
    );
    expect([...notYetThroughTheContract].filter((file) => !stillImporting.has(file))).toEqual([]);
  });

  it("no provider's simulator in the sandbox imports another's: `local/sandbox/<p>/` is that provider's room", () => {
    const offences = edges
      .filter(({ file, target }) => {
        const from = sandboxRoomOf(file);
        const to = sandboxRoomOf(target);
        return from !== undefined && to !== undefined && from !== to;
      })
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(offences).toEqual([]);
    expect(sandboxRoomOf('local/sandbox/github/simulated-github.ts')).toBe('github');
    expect(sandboxRoomOf('local/sandbox/sandbox.ts')).toBeUndefined();
    expect(ownSandboxRoom('local/sandbox/contentsnare/x.ts', 'shared/providers/contentsnare/triggers/examples.ts')).toBe(true);
    expect(ownSandboxRoom('local/sandbox/github/x.ts', 'shared/providers/contentsnare/triggers/examples.ts')).toBe(false);
  });

  it('no import circle: no file reaches itself through the files it imports', () => {
    expect(importCircles(edges.filter(({ file }) => !file.startsWith('test/')))).toEqual([]);
  });

  it('inside a function only deps.ts imports the wiring', () => {
    const offences = edges
      .filter(({ file, target }) => onlyDepsImportWiring(file, target))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(offences).toEqual([]);
  });

  it("only the programs' edges read process.env, never shared/ or a function beside its deps.ts", () => {
    const readers = files.filter(
      (file) => !mayReadEnvironment(file) && /\bprocess\.env\b/.test(withoutComments(readFileSync(join(root, file), 'utf8'))),
    );
    expect(readers).toEqual([]);
  });

  it('reads the imports it judges (the rule cannot pass by reading nothing)', () => {
    expect(
      importsOf("import { a } from '../ports';\nexport { b } from './b';\nawait import('../../x/y');\nimport * as z from 'zod';"),
    ).toEqual(['../ports', './b', '../../x/y']);
    expect(files).toContain('functions/dispatch/handler.ts');
    expect(files).toEqual(
      expect.arrayContaining(['infra/integrations-stack.ts', 'bench/run-all.ts', 'local/cli/dlq.ts', 'test/helpers/dynamo.ts']),
    );
    expect(edges.length).toBeGreaterThan(300);
    expect(
      importCircles([
        { file: 'a.ts', target: 'b.ts' },
        { file: 'b.ts', target: 'a.ts' },
        { file: 'b.ts', target: 'c.ts' },
      ]),
    ).toEqual([['a.ts', 'b.ts']]);
    expect(layerOf('shared/domain')).toBeLessThan(layerOf('shared/wiring'));
    expect(folderOf('local/main.ts')).toBe('local');
    expect(folderOf('local/sandbox/banner.ts')).toBe('local/sandbox');
    expect(layerOf(folderOf('local/sandbox/banner.ts'))).toBeLessThan(layerOf(folderOf('local/runtime.ts')));
    expect(withoutComments('/** process.env */\n// process.env\nconst x = process.env;')).toMatch(/process\.env;/);
    expect(mayReadEnvironment('functions/dispatch/deps.ts')).toBe(true);
    expect(mayReadEnvironment('shared/config/config.ts')).toBe(false);
    expect(mayReadEnvironment('infra/constructs/operations.ts')).toBe(false);
  });
});
