/** The kinds a client or a CLI knows, by name: what they dispatch on instead of naming a kind. */
import type { AgentStateView } from '../contracts/agent-run';
import type { AgentConfig } from '../contracts/run-spec';
import type { AgentWorkflowInput } from '../contracts/agent-workflows';
import type { ModelName } from '../contracts/model-ref';
import type { KindFacts } from '../contracts/kind-facts';
import { AGENT_STOP_REASONS } from '../contracts/run-status';
import type { KindEdge, KindWait } from './kind-edge';

export class KindRegistry {
  private readonly byName = new Map<string, KindEdge>();

  /** Refuses two kinds of one name, or two that take their options under one key. */
  constructor(edges: readonly KindEdge[]) {
    for (const edge of edges) {
      if (this.byName.has(edge.facts.name)) throw new Error(`two agent kinds are named "${edge.facts.name}"`);
      if (edge.optionsKey !== undefined && this.edges.some((e) => e.optionsKey === edge.optionsKey))
        throw new Error(`two agent kinds take their options under "${edge.optionsKey}"`);
      this.byName.set(edge.facts.name, edge);
    }
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get edges(): KindEdge[] {
    return [...this.byName.values()];
  }

  /** The workflow types of the known kinds: what lists and schedules count as agent runs. */
  get workflowTypes(): string[] {
    return this.edges.map((e) => e.facts.workflowType);
  }

  /** Every stop reason a run of the known kinds may end with: every run's, then the kinds' own. */
  get stopReasons(): string[] {
    return [...new Set([...AGENT_STOP_REASONS, ...this.edges.flatMap((e) => e.facts.endReasons ?? [])])];
  }

  /** What each known kind is: the kinds a run's sub-agents may be. */
  get facts(): KindFacts[] {
    return this.edges.map((e) => e.facts);
  }

  find(name: string | undefined): KindEdge | undefined {
    return name === undefined ? undefined : this.byName.get(name);
  }

  /** The options a start gives the kind `edge` (under its key), if any. */
  ownOptions(edge: KindEdge, options: object): unknown {
    return edge.optionsKey === undefined ? undefined : (options as Record<string, unknown>)[edge.optionsKey];
  }

  /** The other kinds whose options a start of `edge` gives: refused, since only the run's kind reads its own. */
  misplaced(edge: KindEdge, options: object): KindEdge[] {
    return this.edges.filter((e) => e !== edge && this.ownOptions(e, options) !== undefined);
  }

  /** The models a start names through its kind's own options. */
  models(kind: string | undefined, options: object): ModelName[] {
    const edge = this.find(kind);
    const own = edge && this.ownOptions(edge, options);
    return own === undefined ? [] : (edge?.models?.(own) ?? []);
  }

  /** The workflow input of a checked start of `edge`. */
  input(edge: KindEdge, config: AgentConfig, own: unknown): AgentWorkflowInput {
    if (edge.input) return edge.input(config, own);
    return { config, ...(own !== undefined && edge.optionsKey !== undefined ? { [edge.optionsKey]: own } : {}) };
  }

  /** What the run of this state view waits for a person to decide besides tool calls. */
  waiting(view: AgentStateView): KindWait | undefined {
    return this.find(view.kind)?.waiting?.(view);
  }

  /** The lines its kind prints of the state view's own fields. */
  stateLines(view: AgentStateView): string[] {
    return this.find(view.kind)?.stateLines?.(view) ?? [];
  }
}
