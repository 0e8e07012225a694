/** Catalogue entries of the client tools a run declares itself (see `RunClientTool`). */
import type { RunClientTool, ToolCatalogEntry } from '../contracts/tool-catalog';
import { catalogEntry } from './fingerprint';

/** The entry of a run's client tool: answered by the calling application, never run on a worker. */
export function runClientToolEntry({ name, description, parameters }: RunClientTool): ToolCatalogEntry {
  return catalogEntry({ name, description, parameters, mode: 'client', source: 'run' });
}
