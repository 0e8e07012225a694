/**
 * Links into the Temporal Web UI. A UI on this machine is always named `localhost`, whatever
 * address it binds: the UI keeps its settings (table columns, the codec endpoint) per origin, so
 * every printed link must share one.
 */

import { isListening } from './ports';

/** Names the Web UI's loopback addresses by one host name. */
const LOOPBACK = new Set(['127.0.0.1', '0.0.0.0', '::', '::1', '[::1]', 'localhost']);

/** The Web UI's base URL for a UI listening on `host:port`. */
export function uiBaseUrl(host: string, port: number): string {
  const name = LOOPBACK.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/**
 * The Web UI of the server at `address`: `TEMPORAL_UI_URL`, else, for a server on this machine, a UI
 * answering on its port + 1000 (a dev server's); undefined when neither is known.
 */
export async function webUiOf(address: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.TEMPORAL_UI_URL) return env.TEMPORAL_UI_URL;
  const match = /^(localhost|127\.0\.0\.1|\[::1\]):(\d+)$/.exec(address);
  if (!match) return undefined;
  const host = match[1] === '[::1]' ? '::1' : match[1];
  const uiPort = Number(match[2]) + 1000;
  return (await isListening(host, uiPort)) ? uiBaseUrl(host, uiPort) : undefined;
}

/**
 * A tab of a run's page: what it waits for and its summary (`user-metadata`), its steps, its
 * events, its parent and children.
 */
export type RunTab = 'user-metadata' | 'timeline' | 'history' | 'relationships';

/**
 * Link to one run in the Web UI. With its run id the link opens `tab`; without, the UI opens the
 * newest run of the id on its timeline (it needs the run id in the path to open any other tab).
 */
export function runUiUrl(
  uiUrl: string,
  namespace: string,
  workflowId: string,
  runId?: string,
  tab: RunTab = 'history',
): string {
  const root = uiUrl.replace(/\/$/, '');
  const base = `${root}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/${tab}` : base;
}
