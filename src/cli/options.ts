import { InvalidArgumentError } from 'commander';

/** Commander parser for a TCP port option. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new InvalidArgumentError(`"${value}" is not a port (1-65535).`);
  return port;
}

/** Commander parser for a positive number of seconds. */
export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidArgumentError(`"${value}" is not a positive number of seconds.`);
  return seconds;
}
