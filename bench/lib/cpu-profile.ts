/**
 * Summarises a V8 .cpuprofile (what `node --cpu-prof` writes): self time by function and by
 * file, largest first, so a profile can be read without a browser.
 *   npx tsx bench/lib/cpu-profile.ts <file.cpuprofile> [top=25] [filter]
 * `filter` keeps the functions whose file contains it (e.g. `/shared/`).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

function shortUrl(url: string): string {
  const i = url.lastIndexOf('node_modules/');
  if (i >= 0) return url.slice(i + 'node_modules/'.length);
  return url.replace(/^file:\/\/.*?\/(shared|local|functions|bench|test)\//, '$1/') || '(native)';
}

/** Self time per function and per file of one profile, largest first. */
export function summarise(profile: Profile): { totalMs: number; byFunction: SelfTime[]; byFile: SelfTime[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id)!;
    const where = shortUrl(callFrame.url);
    const name = `${callFrame.functionName || '(anonymous)'} ${where}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
    const pkg = where.startsWith('@') ? where.split('/').slice(0, 2).join('/') : where.split('/')[0]!;
    const fileKey = callFrame.url.includes('node_modules/') ? pkg : where;
    file.set(fileKey, (file.get(fileKey) ?? 0) + us);
  }
  const rank = (m: Map<string, number>) =>
    [...m].map(([name, us]) => ({ name, ms: us / 1000, share: us / totalUs })).sort((a, b) => b.ms - a.ms);
  return { totalMs: totalUs / 1000, byFunction: rank(fn), byFile: rank(file) };
}

if (process.argv[1]?.endsWith('cpu-profile.ts')) {
  const [file, topRaw, filter] = process.argv.slice(2);
  const top = Number(topRaw ?? 25);
  const s = summarise(JSON.parse(readFileSync(file!, 'utf8')) as Profile);
  const line = (t: SelfTime) => `  ${t.ms.toFixed(1).padStart(8)} ms ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.name}`;
  console.log(`total sampled ${s.totalMs.toFixed(0)} ms\n-- self time by function`);
  console.log(
    s.byFunction
      .filter((t) => !filter || t.name.includes(filter))
      .slice(0, top)
      .map(line)
      .join('\n'),
  );
  console.log('-- self time by file / package');
  console.log(s.byFile.slice(0, top).map(line).join('\n'));
}
