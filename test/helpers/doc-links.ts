/**
 * Relative links in Markdown, and whether each one resolves: to an existing file or folder,
 * and for an `#anchor` into a Markdown file, to one of its headings as GitHub names them.
 * Pure: the caller gives the files' text and an `exists` check, so the rules can be tested on
 * samples (test/unit/doc-links.test.ts) as well as on the repository.
 */
import { dirname, join, normalize } from 'node:path';

export interface DocLink {
  file: string;
  line: number;
  target: string;
}

export interface BrokenLink extends DocLink {
  reason: string;
}

/** Inline links and images `[text](target "title")` / `[text](<target>)`, and reference definitions `[id]: target`. */
const inlineLink = /!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const referenceDefinition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const fence = /^ {0,3}(`{3,}|~{3,})/;

/** Blanks inline code spans so a link written as an example inside backticks is not read as a link. */
const withoutCodeSpans = (line: string) => line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => ' '.repeat(span.length));

/** Every link of a Markdown text with its 1-based line, outside fenced code blocks and code spans. */
export function extractLinks(file: string, text: string): DocLink[] {
  const links: DocLink[] = [];
  let openFence: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const fenceMatch = fence.exec(raw);
    if (fenceMatch) {
      const marker = fenceMatch[1] as string;
      if (openFence === undefined) openFence = marker;
      else if (marker[0] === openFence[0] && marker.length >= openFence.length) openFence = undefined;
      return;
    }
    if (openFence !== undefined) return;
    const line = withoutCodeSpans(raw);
    const unwrap = (t: string) => (t.startsWith('<') && t.endsWith('>') ? t.slice(1, -1) : t);
    for (const m of line.matchAll(inlineLink)) links.push({ file, line: index + 1, target: unwrap(m[1] as string) });
    const ref = referenceDefinition.exec(line);
    if (ref) links.push({ file, line: index + 1, target: unwrap(ref[1] as string) });
  });
  return links;
}

/** A link the checker leaves alone: another scheme (https:, mailto:, ...) or protocol-relative. */
const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/**
 * GitHub's heading anchors (github-slugger): the heading's text without its inline markup,
 * lower-cased, every character that is not a letter, digit, mark, space, `-` or `_` dropped,
 * each space turned into `-`; a repeated slug gets `-1`, `-2`, ... in order.
 */
export function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  let openFence: string | undefined;
  for (const raw of text.split('\n')) {
    const fenceMatch = fence.exec(raw);
    if (fenceMatch) {
      const marker = fenceMatch[1] as string;
      if (openFence === undefined) openFence = marker;
      else if (marker[0] === openFence[0] && marker.length >= openFence.length) openFence = undefined;
      continue;
    }
    if (openFence !== undefined) continue;
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!heading) continue;
    const plain = (heading[1] as string)
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*]/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base);
    const slug = count === undefined ? base : `${base}-${count}`;
    seen.set(base, (count ?? 0) + 1);
    slugs.add(slug);
  }
  return slugs;
}

/**
 * The links that do not resolve. `files` maps each Markdown file (path relative to the root,
 * `/` separators) to its text; `exists` answers for any other relative path (file or folder).
 */
export function brokenLinks(files: ReadonlyMap<string, string>, exists: (path: string) => boolean): BrokenLink[] {
  const slugCache = new Map<string, Set<string>>();
  const slugsOf = (path: string) => {
    const known = slugCache.get(path);
    if (known) return known;
    const slugs = headingSlugs(files.get(path) ?? '');
    slugCache.set(path, slugs);
    return slugs;
  };
  const broken: BrokenLink[] = [];
  for (const [file, text] of files) {
    for (const link of extractLinks(file, text)) {
      if (isExternal(link.target)) continue;
      const hashAt = link.target.indexOf('#');
      const pathPart = hashAt === -1 ? link.target : link.target.slice(0, hashAt);
      const anchor = hashAt === -1 ? undefined : link.target.slice(hashAt + 1);
      let path: string;
      try {
        path =
          pathPart === ''
            ? file
            : normalize(join(dirname(file), decodeURIComponent(pathPart.split('?')[0] as string)))
                .replace(/\\/g, '/')
                .replace(/\/$/, '');
      } catch {
        broken.push({ ...link, reason: 'malformed percent-encoding' });
        continue;
      }
      if (path.startsWith('../') || path === '..') {
        broken.push({ ...link, reason: 'leaves the repository' });
        continue;
      }
      if (!files.has(path) && !exists(path)) {
        broken.push({ ...link, reason: `no such file: ${path}` });
        continue;
      }
      if (anchor !== undefined && anchor !== '' && path.toLowerCase().endsWith('.md')) {
        if (!files.has(path)) continue; // a Markdown file outside the set: its headings are not known
        if (!slugsOf(path).has(decodeURIComponent(anchor).toLowerCase()))
          broken.push({ ...link, reason: `no heading #${anchor} in ${path}` });
      }
    }
  }
  return broken;
}

/** One line per broken link, `file:line: target (reason)`, as an editor jumps to it. */
export const describeBroken = (broken: readonly BrokenLink[]) =>
  broken.map((b) => `${b.file}:${b.line}: ${b.target} (${b.reason})`).join('\n');
