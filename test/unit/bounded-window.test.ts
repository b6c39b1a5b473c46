import { describe, expect, it } from 'vitest';
import { readTextWindow } from '../../shared/http/bounded-window';

/** An answer whose body arrives in the given chunks; `pulled` counts the chunks read. */
function streamed(chunks: string[]): { res: Response; pulled: () => number; cancelled: () => boolean } {
  let i = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[i++];
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { res: new Response(body), pulled: () => i, cancelled: () => cancelled };
}

/** A body that never ends: 1 KiB lines for as long as they are read. */
function endless(): { res: Response; pulled: () => number } {
  let n = 0;
  const line = `${'x'.repeat(1023)}\n`;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      n++;
      controller.enqueue(new TextEncoder().encode(line));
    },
  });
  return { res: new Response(body), pulled: () => n };
}

describe('a window of a long text answer', () => {
  it('ends each window at a line break, and the windows join up to the whole text', async () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i}: ${'y'.repeat(i)}`).join('\n');
    const parts: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const w = await readTextWindow(streamed([text.slice(0, 700), text.slice(700)]).res, { offset, maxBytes: 256 });
      expect(w.offset).toBe(offset);
      expect(w.bytes).toBeLessThanOrEqual(256);
      if (w.nextOffset !== null) expect(w.text.endsWith('\n')).toBe(true);
      parts.push(w.text);
      offset = w.nextOffset;
    }
    expect(parts.join('')).toBe(text);
    expect(parts.length).toBeGreaterThan(5);
  });

  it('cuts a line longer than the window at a character boundary, never inside a character', async () => {
    const text = 'ééééé€€€€€😀😀';
    const parts: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const w = await readTextWindow(streamed([text]).res, { offset, maxBytes: 5 });
      expect(w.text).not.toContain('\uFFFD');
      expect(w.bytes).toBeGreaterThan(0);
      parts.push(w.text);
      offset = w.nextOffset;
    }
    expect(parts.join('')).toBe(text);
  });

  it('stops reading and cancels the stream once the window is full, however long the answer is', async () => {
    const { res, pulled } = endless();
    const w = await readTextWindow(res, { offset: 4096, maxBytes: 2048 });
    expect(w).toMatchObject({ offset: 4096, bytes: 2048, nextOffset: 6144 });
    expect(pulled()).toBeLessThan(10);
  });

  it('says the answer ended when the window reaches its end, and answers nothing past the end', async () => {
    const s = streamed(['a\nb\n', 'c\n']);
    expect(await readTextWindow(s.res, { offset: 0, maxBytes: 6 })).toEqual({ text: 'a\nb\nc\n', offset: 0, bytes: 6, nextOffset: null });
    expect(await readTextWindow(streamed(['a\nb\n']).res, { offset: 10, maxBytes: 6 })).toEqual({
      text: '',
      offset: 10,
      bytes: 0,
      nextOffset: null,
    });
    const cut = streamed(['a\nb\n', 'c\nd\n', 'e\n']);
    expect(await readTextWindow(cut.res, { offset: 2, maxBytes: 4 })).toMatchObject({ text: 'b\nc\n', nextOffset: 6 });
    expect(cut.cancelled()).toBe(true);
  });
});
