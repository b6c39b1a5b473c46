/**
 * Request body limits, per route, enforced before the body is read where the size is
 * declared (`Content-Length`) and while it is read where it is not (chunked).
 */

/** Platform JSON routes (connections, subscriptions, OAuth, admin): their bodies are a few hundred bytes. */
export const defaultMaxBodyBytes = 256 * 1024;

/** Lambda's synchronous payload limit: webhook deliveries and tool-step inputs (file contents, gists) up to what AWS accepts. */
export const lambdaMaxBodyBytes = 6 * 1024 * 1024;
