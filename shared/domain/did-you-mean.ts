import { present } from './present';

/** Edit distance (insertions, deletions, substitutions) between two short ids. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = present(prev[0], 'edit distance cell');
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = present(prev[j], 'edit distance cell');
      prev[j] = Math.min(up + 1, present(prev[j - 1], 'edit distance cell') + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return present(prev[b.length], 'edit distance cell');
}

/**
 * The known ids nearest to a mistyped one (the nearest only, at most 3), comparing without
 * case and with and without the provider prefix (`new_issue` finds `github.new_issue`).
 */
export function closest(given: string, known: readonly string[]): string[] {
  const g = given.trim().toLowerCase().slice(0, 200);
  if (g === '') return [];
  const scored = known.map((k) => {
    const kl = k.toLowerCase();
    const bare = kl.includes('.') ? kl.slice(kl.indexOf('.') + 1) : kl;
    const gBare = g.includes('.') ? g.slice(g.indexOf('.') + 1) : g;
    const d = Math.min(editDistance(g, kl), editDistance(gBare, bare));
    const contains = bare.includes(gBare) || gBare.includes(bare);
    return { k, d: contains ? Math.min(d, 1) : d, len: bare.length };
  });
  const limit = Math.max(2, Math.floor(g.replace(/^[a-z]+\./, '').length / 3));
  const near = scored.filter((s) => s.d <= limit).sort((a, b) => a.d - b.d || a.len - b.len);
  // Only the nearest: one close match is worth more than a list.
  return near
    .filter((s) => s.d === near[0]?.d)
    .slice(0, 3)
    .map((s) => s.k);
}

/** ` Did you mean github.new_issue?` (or or-joined), or '' when nothing is near. */
export function didYouMean(given: string, known: readonly string[]): string {
  const near = closest(given, known);
  return near.length === 0 ? '' : ` Did you mean ${near.join(' or ')}?`;
}
