/** Placeholder until the feature lands: answers 501 so a deployed stack fails loudly, not silently. */
export const handler = async (): Promise<{ statusCode: number; body: string }> => ({
  statusCode: 501,
  body: JSON.stringify({ error: { code: 'not_implemented', message: 'This function is not built yet' } }),
});
