/**
 * The console's key form as a `POST /keys` body: the ticked connections, the agents one per
 * line or comma-separated, empty fields left out. The service checks what comes out and names
 * the field it refuses.
 */
export function keyBodyFromForm(form: URLSearchParams): Record<string, unknown> {
  const body: Record<string, unknown> = { label: form.get('label') ?? '' };
  const connections = form.getAll('connections').filter((c) => c !== '');
  if (connections.length > 0) body.connections = connections;
  const endUserId = form.get('endUserId')?.trim();
  if (endUserId) body.endUserId = endUserId;
  const agents = (form.get('agents') ?? '')
    .split(/[,\n]/)
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (agents.length > 0) body.agents = agents;
  const expiresAt = form.get('expiresAt')?.trim();
  if (expiresAt) body.expiresAt = expiresAt;
  return body;
}
