/**
 * Links into the Temporal Web UI. A UI on this machine is always named `localhost`, whatever
 * address it binds: the UI keeps its settings (table columns, the codec endpoint) per origin, so
 * every printed link must share one.
 */

/** Names the Web UI's loopback addresses by one host name. */
const LOOPBACK = new Set(['127.0.0.1', '0.0.0.0', '::', '::1', '[::1]', 'localhost']);

/** The Web UI's base URL for a UI listening on `host:port`. */
export function uiBaseUrl(host: string, port: number): string {
  const name = LOOPBACK.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
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
