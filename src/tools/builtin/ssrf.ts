import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A URL or address the fetch tool refuses; the message is shown to the model. */
export class UrlRefusedError extends Error {
  override name = 'UrlRefusedError';
}

/** Temporal frontend/internal ports and the dev server's UI: never reachable from a tool. */
const BLOCKED_PORTS: ReadonlySet<number> = new Set([6933, 6934, 6935, 6939, 7233, 7234, 7235, 7239, 8233]);

/** Addresses an operator explicitly allows despite the guard (e.g. an internal docs server), as `ip:port`. */
export interface SsrfPolicy {
  allow?: { address: string; port: number }[];
}

/**
 * Why an address must not be contacted, or undefined when it is a public unicast address.
 * IPv4-mapped IPv6 is checked as the IPv4 address it carries.
 */
export function blockedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? undefined : `${parsed.toString()} is a ${range} address`;
}

function allowed(policy: SsrfPolicy, address: string, port: number): boolean {
  const normal = ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
  return (policy.allow ?? []).some(
    (a) => a.port === port && ipaddr.isValid(a.address) && ipaddr.process(a.address).toString() === normal,
  );
}

/** Checks an address about to be connected to. Throws {@link UrlRefusedError}. */
function assertAddressAllowed(address: string, port: number, policy: SsrfPolicy): void {
  if (allowed(policy, address, port)) return;
  const reason = blockedAddressReason(address);
  if (reason) throw new UrlRefusedError(`Refused to connect: ${reason} (internal addresses are not reachable).`);
  if (BLOCKED_PORTS.has(port)) throw new UrlRefusedError(`Refused to connect: port ${port} is reserved.`);
}

export function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Checks a URL before any request: http(s) only, no credentials, no reserved port, and a literal
 * IP host (in any spelling: `127.1`, `2130706433`, `0x7f.0.0.1`, `[::ffff:127.0.0.1]`, which the
 * URL parser normalises) checked here because no DNS lookup happens for it.
 */
export function checkUrl(raw: string, policy: SsrfPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefusedError(`"${raw}" is not a valid absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlRefusedError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new UrlRefusedError('URLs with credentials are not fetched.');
  const port = defaultPort(url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) assertAddressAllowed(host, port, policy);
  else if (BLOCKED_PORTS.has(port) && !(policy.allow ?? []).some((a) => a.port === port)) {
    throw new UrlRefusedError(`Refused to connect: port ${port} is reserved.`);
  }
  return url;
}

/**
 * A `lookup` for http(s) requests that resolves the name and refuses blocked addresses, so the
 * check applies to the address the socket actually connects to (no DNS-rebinding window).
 */
export function guardedLookup(port: number, policy: SsrfPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      try {
        for (const a of addresses) assertAddressAllowed(a.address, port, policy);
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
