/** A JSON object as the simulated partner API reads and answers it. */
export type Json = Record<string, unknown>;

/** What the simulated partner API answers: its webhooks' routes answer the same way. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}
