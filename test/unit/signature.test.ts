import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../shared/providers/github/webhooks/signature';

const secret = "It's a Secret to Everybody";
const body = Buffer.from('Hello, World!');
const documented = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

describe('verifySignature (X-Hub-Signature-256 on the raw bytes)', () => {
  it("accepts the code host's documented test vector", async () => {
    expect(await verifySignature(secret, body, documented)).toBe(true);
  });

  it('refuses the vector when one byte of the body changes', async () => {
    expect(await verifySignature(secret, Buffer.from('Hello, World?'), documented)).toBe(false);
  });

  it('refuses the vector under another secret', async () => {
    expect(await verifySignature('another secret', body, documented)).toBe(false);
  });

  it('accepts a unicode body signed over its exact bytes (emoji, U+2028, escapes)', async () => {
    const text = Buffer.from('{"title":"ship it 🚀","body":"line\u2028sep \\u00e9 é"}', 'utf8');
    const sig = `sha256=${createHmac('sha256', 's3cret').update(text).digest('hex')}`;
    expect(await verifySignature('s3cret', text, sig)).toBe(true);
  });

  it('refuses bytes that are not UTF-8 even when signed, since they cannot be verified as sent', async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const sig = `sha256=${createHmac('sha256', 's3cret').update(bytes).digest('hex')}`;
    expect(await verifySignature('s3cret', bytes, sig)).toBe(false);
  });

  const malformed: Array<[string, string | undefined]> = [
    ['missing', undefined],
    ['empty', ''],
    ['sha1 only', 'sha1=0a4d55a8d778e5022fab701977c5d840bbc486d0'],
    ['truncated', documented.slice(0, -2)],
    ['upper-case hex', documented.toUpperCase().replace('SHA256=', 'sha256=')],
    ['upper-case prefix', documented.replace('sha256=', 'SHA256=')],
    ['non-hex', `sha256=${'z'.repeat(64)}`],
    ['doubled', `${documented},${documented}`],
    ['doubled without separator', `${documented}${documented.slice(7)}`],
    ['no prefix', documented.slice(7)],
    ['trailing garbage', `${documented}00`],
  ];
  for (const [name, header] of malformed) {
    it(`refuses a ${name} signature without throwing`, async () => {
      await expect(verifySignature(secret, body, header)).resolves.toBe(false);
    });
  }

  it('refuses an empty body and an empty secret without throwing', async () => {
    await expect(verifySignature(secret, Buffer.alloc(0), documented)).resolves.toBe(false);
    await expect(verifySignature('', body, documented)).resolves.toBe(false);
  });
});
