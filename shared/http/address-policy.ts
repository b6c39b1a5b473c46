/**
 * Which network addresses a caller-chosen host (a token connection's `apiBaseUrl`) may reach
 * (docs/security.md, section 3). Pure: strings in, a class and a verdict out; the connect-time guard
 * (guarded-fetch.ts) and the `apiBaseUrl` schema both decide with it.
 *
 * Deny by default: an address is `public` only when it is in no special-purpose range
 * (IANA IPv4/IPv6 special-purpose registries); IPv6 is public only inside 2000::/3. IPv4
 * written inside IPv6 (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4 2002::/16) is judged by the IPv4 address it carries, so
 * `[::ffff:169.254.169.254]` is the metadata endpoint it is.
 */

export type AddressClass =
  | 'public'
  | 'loopback'
  /** RFC 1918, CGNAT 100.64/10, IPv6 unique-local fc00::/7: an operator may allow these. */
  | 'private'
  | 'link_local'
  /** Cloud instance-metadata endpoints. */
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  /** Documentation, benchmarking, protocol-assignment, future-use and other non-routable ranges. */
  | 'reserved'
  | 'invalid';

type V4 = readonly [number, number, number, number];

/** Instance-metadata addresses: AWS/GCP/Azure/OpenStack, ECS task metadata, Alibaba, AWS IPv6 IMDS. */
const metadataV4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);
const metadataV6 = new Set(['fd00:ec2:0:0:0:0:0:254']);

function parseV4(s: string): V4 | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^(?:0|[1-9][0-9]{0,2})$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out as unknown as V4;
}

/** Eight 16-bit groups, or undefined when `s` is not an IPv6 address (zone ids refused). */
function parseV6(s: string): number[] | undefined {
  if (s.includes('%') || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  let head = s;
  const tail: number[] = [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(s.slice(lastColon + 1));
    if (!v4) return undefined;
    tail.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    head = s.slice(0, lastColon + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const left = groups(halves[0] ?? '');
  const right = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const all = [...left, ...right];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const known = all.length + tail.length;
  if (halves.length === 1 && known !== 8) return undefined;
  if (halves.length === 2 && known > 7) return undefined;
  const zeros = halves.length === 2 ? 8 - known : 0;
  return [...left.map((g) => parseInt(g, 16)), ...new Array<number>(zeros).fill(0), ...right.map((g) => parseInt(g, 16)), ...tail];
}

function inV4(a: V4, base: V4, bits: number): boolean {
  const n = ((a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]) >>> 0;
  const b = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (n & mask) === (b & mask);
}

const v4Ranges: ReadonlyArray<[V4, number, AddressClass]> = [
  [[0, 0, 0, 0], 8, 'unspecified'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'private'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link_local'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'],
  [[192, 0, 2, 0], 24, 'reserved'],
  [[192, 31, 196, 0], 24, 'reserved'],
  [[192, 52, 193, 0], 24, 'reserved'],
  [[192, 88, 99, 0], 24, 'reserved'],
  [[192, 168, 0, 0], 16, 'private'],
  [[192, 175, 48, 0], 24, 'reserved'],
  [[198, 18, 0, 0], 15, 'reserved'],
  [[198, 51, 100, 0], 24, 'reserved'],
  [[203, 0, 113, 0], 24, 'reserved'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'],
];

function classifyV4(a: V4): AddressClass {
  const text = a.join('.');
  if (metadataV4.has(text)) return 'metadata';
  if (text === '255.255.255.255') return 'broadcast';
  for (const [base, bits, cls] of v4Ranges) if (inV4(a, base, bits)) return cls;
  return 'public';
}

function v4From(hi: number, lo: number): V4 {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

function classifyV6(g: number[]): AddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (metadataV6.has(g.map((x) => x.toString(16)).join(':'))) return 'metadata';
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // IPv4 carried inside IPv6: judged as that IPv4 address.
  if (zeroTo(5) && g5 === 0xffff) return classifyV4(v4From(g6, g7));
  if (zeroTo(6)) return classifyV4(v4From(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(v4From(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return classifyV4(v4From(g6, g7));
  if (g0 === 0x2002) return classifyV4(v4From(g1, g2));
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xfe00) === 0xfc00) return 'private';
  // Teredo (2001::/32), documentation (2001:db8::/32, 3fff::/20), ORCHID and the rest of the
  // IETF protocol block 2001::/23: not an enterprise server's address.
  if (g0 === 0x2001 && (g1 < 0x200 || g1 === 0xdb8)) return 'reserved';
  if (g0 === 0x3fff && g1 < 0x1000) return 'reserved';
  if ((g0 & 0xe000) === 0x2000) return 'public';
  return 'reserved';
}

/** The class of an IP address (`1.2.3.4`, `::1`, `[::1]`); `invalid` when it is none. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const v4 = parseV4(bare);
  if (v4) return classifyV4(v4);
  const v6 = parseV6(bare);
  return v6 ? classifyV6(v6) : 'invalid';
}

/** True when `host` is an IP literal (brackets allowed), not a name. */
export function isIpLiteral(host: string): boolean {
  return classifyAddress(host) !== 'invalid';
}

export interface AddressPolicy {
  /** Loopback is reachable (the local runtime and tests; never on AWS, where the Lambda runtime API listens there). */
  allowLoopback: boolean;
  /** Private ranges are reachable (an operator listed the host in GITHUB_ALLOWED_PRIVATE_HOSTS). */
  allowPrivate: boolean;
}

/** Classes no setting opens: they are never an enterprise server. */
const neverAllowed: ReadonlySet<AddressClass> = new Set([
  'metadata',
  'link_local',
  'unspecified',
  'multicast',
  'broadcast',
  'reserved',
  'invalid',
]);

/** Why `ip` may not be reached under `policy`, or undefined when it may. */
export function addressProblem(ip: string, policy: AddressPolicy): string | undefined {
  const cls = classifyAddress(ip);
  if (cls === 'public') return undefined;
  const what = `${ip} is a ${cls.replace('_', '-')} address`;
  if (neverAllowed.has(cls)) return `${what}, which is never reachable from here`;
  if (cls === 'loopback' && (policy.allowLoopback || policy.allowPrivate)) return undefined;
  if (cls === 'private' && policy.allowPrivate) return undefined;
  return `${what}; list the host in GITHUB_ALLOWED_PRIVATE_HOSTS if it is your enterprise server`;
}

/** Literal hosts refused whatever the settings (metadata, link-local, unspecified, multicast...), for the `apiBaseUrl` schema. */
export function literalHostProblem(host: string): string | undefined {
  const cls = classifyAddress(host);
  if (cls === 'invalid' || !neverAllowed.has(cls)) return undefined;
  const what = cls === 'metadata' ? 'cloud metadata (link-local)' : cls.replace('_', '-');
  return `must not be a ${what} address`;
}
