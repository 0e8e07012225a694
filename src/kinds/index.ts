/**
 * The agent kinds the client and the CLI know (docs/design.md, Agent kinds). A kind is registered
 * here with one line; a kind of your own is given to the client (`AgentClientOptions.kinds`) and
 * the CLI (`main(argv, { kinds })`) beside these.
 */
import type { KindEdge } from './kind-edge';
import { KindRegistry } from './kind-registry';
import { pevEdge } from './pev';
import { reactEdge } from './react';

export const BUILT_IN_KINDS: readonly KindEdge[] = [reactEdge, pevEdge];

/** The built-in kinds and `more`. */
export const kindRegistry = (more: readonly KindEdge[] = []): KindRegistry =>
  new KindRegistry([...BUILT_IN_KINDS, ...more]);

export { KindRegistry } from './kind-registry';
export { kindFlag, type KindEdge, type KindFlag, type KindStartOptions, type KindWait } from './kind-edge';
export { keyValues, modelSpec, oneOf, positiveInteger } from './flag-values';
export { pevEdge } from './pev';
export { reactEdge } from './react';
