import type { PinnedTool } from '../../../src/contracts/agent-run';

/** A pinned server tool without side effects, as pinning gives it; `extra` changes what a test needs. */
export const pinnedTool = (name: string, extra: Partial<PinnedTool> = {}): PinnedTool => ({
  name,
  mode: 'server',
  timeoutMs: 5_000,
  sideEffects: false,
  fingerprint: `fp-${name}`,
  ...extra,
});
