import { afterEach, describe, expect, it, vi } from 'vitest';
import { stdoutLines } from '../../local/stdout-lines';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('local runtime log lines on stdout', () => {
  it('are written together once per event-loop turn, in order, each ending its line', async () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      writes.push(String(chunk));
      return true;
    });
    stdoutLines('{"n":1}');
    stdoutLines('{"n":2}');
    stdoutLines('{"n":3}');
    expect(writes).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    stdoutLines('{"n":4}');
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
  });

  it('writes what is pending when the process exits', () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      writes.push(String(chunk));
      return true;
    });
    stdoutLines('{"last":true}');
    process.emit('exit', 0);
    expect(writes).toEqual(['{"last":true}\n']);
  });
});
