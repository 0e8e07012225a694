/** A run's spec from its options alone (no config file's layer under them), as a start would layer it. */
import type { AgentOptions } from '../../src/contracts/agent-options';
import type { KindFacts } from '../../src/contracts/kind-facts';
import type { AgentConfig } from '../../src/contracts/run-spec';
import { BUILT_IN_KIND_FACTS, DEFAULT_KIND, kindFactsOf } from '../../src/policy/kind-facts';
import { RunSpecError, layerRunSpec } from '../../src/policy/run-spec';

/** The spec of a run of `options.kind` (default ReAct); an unknown kind is a {@link RunSpecError}. */
export const runSpec = (options: AgentOptions, known: readonly KindFacts[] = BUILT_IN_KIND_FACTS): AgentConfig => {
  const kind = kindFactsOf(options.kind ?? DEFAULT_KIND, known);
  if (!kind)
    throw new RunSpecError([
      `unknown agent kind "${String(options.kind)}"; known: ${known.map((k) => k.name).join(', ')}`,
    ]);
  return layerRunSpec(kind, [options], known);
};
