/** The log URL the log request redirects to, on the code host's own origin (as an enterprise server serves it). */
export const sampleLogPath = '/_logs/job.txt';
export const sampleLog = `${Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n')}\n##[error]Process completed with exit code 1.\n`;

/** The sample log as log storage serves it: without a token, a suffix or offset byte range answered 206. */
export function serveSampleLog(range: string | undefined): { status: number; headers: Record<string, string>; body: string } {
  const log = Buffer.from(sampleLog);
  const m = /^bytes=(\d*)-(\d*)$/.exec(range ?? '');
  if (!m) return { status: 200, headers: { 'content-type': 'text/plain' }, body: sampleLog };
  const [, from = '', to = ''] = m;
  const start = from === '' ? Math.max(0, log.length - Number(to)) : Number(from);
  const end = from === '' || to === '' ? log.length - 1 : Math.min(Number(to), log.length - 1);
  if (start >= log.length) return { status: 416, headers: { 'content-range': `bytes */${log.length}` }, body: '' };
  const headers = { 'content-type': 'text/plain', 'content-range': `bytes ${start}-${end}/${log.length}` };
  return { status: 206, headers, body: log.subarray(start, end + 1).toString('utf8') };
}
