import * as z from 'zod';

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An enterprise server's REST base (`https://github.example.com/api/v3`), carried by a
 * token connection. The token is sent there, so: https only (plain http only on loopback,
 * for local servers and tests), no credentials, query or fragment, and no link-local hosts
 * (cloud metadata endpoints live there).
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
            : /^169\.254\.|^\[fe80:/i.test(url.hostname)
              ? 'must not be a link-local address'
              : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((v) => v.replace(/\/+$/, ''))
  .describe("The enterprise server's REST API base, e.g. https://github.example.com/api/v3");
