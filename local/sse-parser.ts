import { lambdaMaxBodyBytes } from '../shared/http/body-limits';

/** One server-sent event: its `event` name (default `message`) and its `data` lines joined. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** What a relayed event carries besides the body: the request's headers, the query, the framing. */
const relayFramingChars = 64 * 1024;

/**
 * The largest event the relay reader holds: the intake's body limit plus framing. A larger
 * event carries a body the intake would refuse (413), so it is skipped as it streams in,
 * never parsed. (smee.io itself takes no body over 1 MiB.)
 */
export const maxRelayEventChars = lambdaMaxBodyBytes + relayFramingChars;

export interface SseParserOptions {
  /** An event whose lines add up to more than this is skipped (default {@link maxRelayEventChars}). */
  maxEventChars?: number;
  /** Told the size reached when an event is skipped for its size. */
  onOversized?: (chars: number) => void;
}

/**
 * Parses an SSE stream incrementally (the EventSource format of the HTML standard): lines
 * `field: value`, `:` comments, an event ends at a blank line, `data` lines joined by "\n".
 * Feed it text chunks; it returns the events completed so far. It holds at most about
 * `maxEventChars` of one event: a relay that sends more (or a line that never ends) has that
 * event skipped, up to its blank line, and the stream read on.
 */
export function sseParser(options: SseParserOptions = {}): (chunk: string) => SseEvent[] {
  const max = options.maxEventChars ?? maxRelayEventChars;
  const lineEnd = /\r\n|\r|\n/g;
  let buffer = '';
  /** Where the search for the next line end resumes in `buffer` (what is before it has none). */
  let scanFrom = 0;
  let event = '';
  let data: string[] = [];
  let held = 0;
  let id: string | undefined;
  /** Inside an event skipped for its size: its lines are dropped until its blank line. */
  let skipping = false;

  const reset = () => {
    event = '';
    data = [];
    held = 0;
  };
  const skip = (chars: number) => {
    reset();
    skipping = true;
    options.onOversized?.(chars);
  };
  const line = (text: string, out: SseEvent[]) => {
    if (text === '') {
      if (!skipping && data.length > 0) out.push({ event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
      skipping = false;
      reset();
      return;
    }
    if (skipping || text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') {
      data.push(value);
      held += value.length + 1;
      if (held > max) skip(held);
    } else if (field === 'id') id = value;
  };

  return (chunk) => {
    buffer += chunk;
    const out: SseEvent[] = [];
    let start = 0;
    lineEnd.lastIndex = scanFrom;
    for (let m = lineEnd.exec(buffer); m; m = lineEnd.exec(buffer)) {
      // A CR that ends the text so far may be the first half of a CRLF: wait for what follows.
      if (m[0] === '\r' && m.index === buffer.length - 1) break;
      line(buffer.slice(start, m.index), out);
      start = m.index + m[0].length;
    }
    buffer = buffer.slice(start);
    scanFrom = buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
    // A line still open counts toward its event: past the bound, it is dropped as it comes.
    if (held + buffer.length > max) {
      const reached = held + buffer.length;
      buffer = '';
      scanFrom = 0;
      if (!skipping) skip(reached);
    }
    return out;
  };
}
