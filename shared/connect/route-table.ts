import * as z from 'zod';
import type { RouteTable } from '../http/route-table';
import { connectSessionAnswer, connectSessionInput } from './create-session';

const tokenParam = z.object({ token: z.string().max(128).describe('The session token from `POST /connect/sessions`') });
const htmlPage = z.string().describe('An HTML page for a person');
const pageHeaders = { 'cache-control': 'no-store', 'referrer-policy': 'same-origin' };
const expired = { description: 'The link has expired (a page saying so)', contentType: 'text/html', body: htmlPage };

/**
 * The connect page of the platform's end users (docs/oauth-and-connections.md): the platform
 * asks for a session (platform key), the end user's browser opens its page, chooses a service
 * and posts the choice back to the page. Served by the OAuth function, beside the flows it
 * starts. Handlers: shared/connect/connect-routes.ts.
 */
export const connectRouteTable = {
  createConnectSession: {
    method: 'POST',
    pattern: '/connect/sessions',
    auth: 'platform',
    spec: {
      summary: "A connect page for one of the platform's end users: valid 30 minutes, single use",
      description:
        'Each connection made through the page carries `endUserId` (`GET /connections?endUserId=` lists them; `POST /keys` with `endUserId` makes a key for all of them). The token is answered once; only its hash is kept.',
      tags: ['connect'],
      body: connectSessionInput,
      answers: { 201: { description: 'The page to open, and until when', body: connectSessionAnswer } },
      errors: ['invalid_input'],
    },
  },
  connectPage: {
    method: 'GET',
    pattern: '/connect/:token',
    auth: 'none',
    spec: {
      summary: 'The connect page: choose a service to connect',
      description:
        'A page without script: the code host by OAuth, through its App or with a fine-grained token, the collection service by OAuth, as the session offers them. An unknown (404), expired (410) or used (409) link answers a page saying so.',
      tags: ['connect'],
      params: tokenParam,
      answers: {
        200: { description: 'The choice of services', contentType: 'text/html', body: htmlPage, headers: pageHeaders },
        410: expired,
      },
      errors: ['not_found', 'conflict'],
      errorAlternatives: { 'text/html': htmlPage },
    },
  },
  connectChoose: {
    method: 'POST',
    pattern: '/connect/:token',
    auth: 'none',
    rawBody: true,
    maxBodyBytes: 4096,
    spec: {
      summary: "The connect page's form: the end user's choice",
      description:
        'Posted by the page itself (a form field derived from the session, and the browser\'s Origin, are checked). A service: `303` to its authorization (the connection is made for the session\'s end user, then `302` to `returnTo` with `connectionId`, or a "connected" page). `choice=token`: the token is checked with the code host, the session spent and the connection made.',
      tags: ['connect'],
      params: tokenParam,
      body: z.object({
        csrf: z.string(),
        choice: z.enum(['github', 'github_app', 'contentsnare', 'token']),
        token: z.string().optional().describe('With `choice=token`: a fine-grained token'),
      }),
      answers: {
        303: {
          description: "On to the service's authorization, or to `returnTo` with `connectionId`",
          headers: { location: 'Where to', ...pageHeaders },
        },
        200: { description: 'Connected (a token, no returnTo)', contentType: 'text/html', body: htmlPage },
        410: expired,
      },
      errors: ['invalid_input', 'forbidden', 'not_found', 'conflict', 'not_configured'],
      errorAlternatives: { 'text/html': htmlPage },
    },
  },
} satisfies RouteTable;
