import { ConfigError } from '../shared/config/config';

/** PORT as a number, or a config error naming the variable (`PORT=abc` would otherwise listen on a random port or crash). */
export function parsePort(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 3000;
  const text = value.trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(n) || n > 65535) {
    throw new ConfigError([`PORT: "${value}" is not a port number (0-65535; 0 picks a free one)`]);
  }
  return n;
}

/** A listen failure as people need it: a port in use or not allowed names PORT and what to do. */
export function listenError(e: unknown, port: number, host: string): unknown {
  const code = (e as { code?: unknown })?.code;
  if (code === 'EADDRINUSE') {
    return new ConfigError([
      `PORT: ${port} is already in use on ${host} (is another runtime still running? stop it, or set PORT to a free port)`,
    ]);
  }
  if (code === 'EACCES') return new ConfigError([`PORT: ${port} needs privileges on ${host}; choose a port above 1023`]);
  if (code === 'EADDRNOTAVAIL') return new ConfigError([`HOST: ${host} is not an address of this machine`]);
  return e;
}
