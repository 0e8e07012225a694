import { InvalidArgumentError } from 'commander';

/** Commander parser for a TCP port option. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidArgumentError(`"${value}" is not a port (1-65535).`);
  return port;
}
