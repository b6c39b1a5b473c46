import * as z from 'zod';
import { literalHostProblem } from '../http/address-policy';

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An enterprise server's REST base (`https://github.example.com/api/v3`), carried by a
 * token connection. The token is sent there, so: https only (plain http only on loopback,
 * for local servers and tests), no credentials, query or fragment, and no address literal
 * that is never a server (metadata, link-local, unspecified, multicast... in any spelling,
 * IPv4-mapped included: shared/http/address-policy.ts). Names, private and loopback
 * addresses are decided by the address they resolve to, at connect time of each request
 * (shared/http/guarded-fetch.ts), where GITHUB_ALLOWED_PRIVATE_HOSTS is known.
 */
export const apiBaseUrl = z
  .url()
  .max(500)
  .superRefine((value, ctx) => {
    // Refinements run after a failed format check too: a value that is no URL is already reported.
    if (!URL.canParse(value)) return;
    const url = new URL(value);
    const problem =
      url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackHosts.has(url.hostname))
        ? 'must be an https URL'
        : url.username || url.password
          ? 'must not carry credentials'
          : url.search || url.hash
            ? 'must not carry a query or fragment'
            : literalHostProblem(url.hostname);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((v) => v.replace(/\/+$/, ''))
  .describe("The enterprise server's REST API base, e.g. https://github.example.com/api/v3");
