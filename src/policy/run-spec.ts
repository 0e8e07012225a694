/**
 * The run spec's one layering function (docs/design.md, The run spec): the defaults, then the
 * kind's facts, then each layer of options in order (the config file's, an earlier run's, the
 * run's own), where a later layer's defined fields win, records merge field by field and lists are
 * replaced, except the tools that need approval and the rules that ask for it: those add up, so no
 * layer drops an earlier one's approval. Pure; checked by `runSpecProblems`.
 */
import { didYouMean } from '../common/did-you-mean';
import type { AgentOptions, ContextOptions, ModelOptions, RunLayer, ToolOptions } from '../contracts/agent-options';
import type { KindFacts } from '../contracts/kind-facts';
import type { ModelName, ModelRef } from '../contracts/model-ref';
import type {
  AgentConfig,
  AgentHooks,
  AgentLimits,
  ContextPolicy,
  FleetSpec,
  PlanItem,
  SessionSpec,
} from '../contracts/run-spec';
import type { ResolverPolicy } from '../contracts/model-resolution';
import type { ToolSelection } from '../contracts/tool-catalog';
import type { SubAgents } from '../contracts/sub-agents';
import { isPlainObject } from '../common/type-helpers';
import { withAskUser } from './ask-user';
import { defaultContextPolicy } from './context-plan';
import { BUILT_IN_KIND_FACTS, DEFAULT_KIND, kindFactsOf } from './kind-facts';
import { defaultLimits } from './limits';
import { DEFAULT_MASK_POLICY } from './masking';
import { modelNameProblem, modelRefOf } from './model-ref';
import { planOf } from './plan';
import { resolverPolicy } from './resolver';
import { DEFAULT_SYSTEM_PROMPT_TEXT } from './system-prompt';

/** Options that cannot be layered into a spec (a model name that names no model, a field no record has). */
export class RunSpecError extends Error {
  override name = 'RunSpecError';
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** Every field of `T`: the compiler holds each list to its record's type, none missing, none extra. */
const fieldsOf = <T>(fields: Record<keyof T, true>): readonly string[] => Object.keys(fields);

/**
 * The records of the options and the fields each may hold, as a caller gives them or as a resolved
 * spec does (a continued run layers its earlier run's); the call settings are checked on their own.
 */
const RECORDS: Record<string, readonly string[]> = {
  model: fieldsOf<ModelOptions & ResolverPolicy & ModelRef>({
    primary: true, fallbacks: true, budget: true, attemptsPerProvider: true, failoverOnOverload: true,
    rateLimitPatienceMs: true, provider: true, model: true,
  }),
  tools: fieldsOf<ToolOptions & ToolSelection>({
    allow: true, deny: true, mcpServers: true, mcpConfigPath: true, mcpConfig: true, workspaceRoot: true,
    approve: true, approvals: true, context: true, clientTools: true, askUser: true,
  }),
  limits: fieldsOf<AgentLimits>({
    maxTurns: true, maxTotalTokens: true, maxCostUsd: true, maxToolCallsPerTurn: true, toolTimeoutsMs: true,
    approvalTimeoutMs: true, maxParallelAgents: true, maxAgentDepth: true,
  }),
  context: fieldsOf<ContextOptions & ContextPolicy>({
    windowTokens: true, thresholdRatio: true, keepRecentRatio: true, summaryModel: true, mask: true,
  }),
  hooks: fieldsOf<AgentHooks>({
    onTurnEnd: true, resolveModel: true, transformContext: true, onMessage: true, onError: true,
  }),
  session: fieldsOf<SessionSpec>({
    from: true, initialMessages: true, idleWaitMs: true, continueAsNewAfterTurns: true,
  }),
  fleet: fieldsOf<FleetSpec>({ tenant: true, priority: true, taskQueue: true, expectedCostUsd: true }),
}; // prettier-ignore
const TOP_LEVEL: readonly string[] = [
  'task', 'kind', 'model', 'systemPrompt', 'call', 'tools', 'limits', 'context', 'session', 'fleet', 'agents',
  'plan', 'hooks', 'stream', 'searchAttributes', 'eval',
]; // prettier-ignore

/** Fields no record of the options has: a misspelt option is named, never dropped without a word. */
function unknownFields(layer: RunLayer): string[] {
  const problems = Object.keys(layer)
    .filter((key) => !TOP_LEVEL.includes(key))
    .map((key) => `unknown option "${key}"${didYouMean(key, TOP_LEVEL)}`);
  for (const [record, fields] of Object.entries(RECORDS)) {
    const value = (layer as Record<string, unknown>)[record];
    if (!isPlainObject(value)) continue;
    for (const key of Object.keys(value))
      if (!fields.includes(key)) problems.push(`unknown option "${record}.${key}"${didYouMean(key, fields)}`);
  }
  return problems;
}

/** What the run's own options ask that its kind sets itself (the kind's facts say which). */
function kindProblems(kind: KindFacts, layers: readonly RunLayer[]): string[] {
  const asked = (pick: (l: RunLayer) => unknown): boolean => layers.some((l) => pick(l) !== undefined);
  return [
    ...(kind.ownPrompts && asked((l) => l.systemPrompt)
      ? [`systemPrompt does not apply to ${kind.name} runs: ${kind.ownPrompts}`]
      : []),
    ...(kind.callSettings === 'sampling'
      ? (['responseFormat', 'toolChoice'] as const)
          .filter((key) => asked((l) => l.call?.[key]))
          .map((key) => `${key} does not apply to ${kind.name} runs: each step sets its own`)
      : []),
  ];
}

const ADDED_UP = new Set(['approve', 'approvals']);

/** `over` laid on `under`: defined fields win, records merge, lists are replaced (approvals add up). */
function merge(under: unknown, over: unknown, key = ''): unknown {
  if (over === undefined) return under;
  if (ADDED_UP.has(key) && Array.isArray(under) && Array.isArray(over)) return [...new Set([...under, ...over])];
  if (!isPlainObject(under) || !isPlainObject(over)) return over;
  const out: Record<string, unknown> = { ...under };
  for (const [k, v] of Object.entries(over)) out[k] = merge(out[k], v, k);
  return out;
}

/** A layer's model as a record: a name alone is the primary. */
const modelRecord = (model: RunLayer['model']): Partial<ModelOptions> | undefined =>
  model === undefined
    ? undefined
    : isPlainObject(model) && !('provider' in model)
      ? model
      : { primary: model as ModelName };

/** A model name of the options, parsed; `where` names it in the problem. */
function modelAt(where: string, value: unknown, problems: string[]): ModelRef | undefined {
  const problem = modelNameProblem(value);
  if (problem === undefined) return modelRefOf(value as ModelName);
  problems.push(`${where}: ${problem}`);
  return undefined;
}

const isRef = (ref: ModelRef | undefined): ref is ModelRef => ref !== undefined;

/** The declared sub-agents, each with its kind's facts where the kind is known. */
function withKindFacts(agents: SubAgents | undefined, known: readonly KindFacts[]): SubAgents | undefined {
  if (!isPlainObject(agents) || Object.keys(agents).length === 0) return undefined;
  return Object.fromEntries(
    Object.entries(agents).map(([name, spec]) => {
      const facts = isPlainObject(spec) ? (spec.facts ?? kindFactsOf(spec.kind ?? DEFAULT_KIND, known)) : undefined;
      return [name, facts ? { ...spec, facts } : spec];
    }),
  );
}

/**
 * The resolved spec of a run of `kind` from `layers`, lowest first. `known` are the kinds a
 * sub-agent may be (default: the built-in kinds). Throws {@link RunSpecError} for what cannot be
 * layered; everything else is `runSpecProblems`'s to find.
 */
export function layerRunSpec(
  kind: KindFacts,
  layers: readonly (RunLayer | undefined)[],
  known: readonly KindFacts[] = BUILT_IN_KIND_FACTS,
): AgentConfig {
  const given = layers.filter((l): l is RunLayer => l !== undefined);
  const problems = [...given.flatMap(unknownFields), ...kindProblems(kind, given)];
  const o = given.reduce<Record<string, unknown>>(
    (acc, layer) => merge(acc, { ...layer, model: modelRecord(layer.model) }) as Record<string, unknown>,
    {},
  ) as Partial<Omit<AgentOptions, 'model'>> & { model?: Partial<ModelOptions> };
  const { primary, fallbacks = [], budget, ...extra } = o.model ?? {};
  if (primary === undefined) problems.push('no model: name the model the run calls');
  const refs = {
    primary: primary === undefined ? undefined : modelAt('model', primary, problems),
    fallbacks: fallbacks.map((f, i) => modelAt(`fallbacks[${i}]`, f, problems)),
    budget: (budget ?? []).map((r, i) => ({ ...r, model: modelAt(`budget[${i}].model`, r.model, problems) })),
  };
  const { summaryModel, mask, ...context } = o.context ?? {};
  const summary = summaryModel === undefined ? undefined : modelAt('context.summaryModel', summaryModel, problems);
  if (problems.length > 0 || !refs.primary) throw new RunSpecError(problems);
  const model = resolverPolicy(refs.primary, refs.fallbacks.filter(isRef), {
    ...extra,
    ...(budget ? { budget: refs.budget.flatMap((r) => (isRef(r.model) ? [{ ...r, model: r.model }] : [])) } : {}),
  });
  const { askUser, ...tools } = o.tools ?? {};
  const masking = mask ?? (kind.masks ? {} : false);
  const counted = masking !== false && (masking.keepResults !== undefined || masking.batch !== undefined);
  const agents = withKindFacts(o.agents, known);
  return {
    kind: kind.name,
    task: o.task ?? '',
    ...(kind.ownPrompts && o.systemPrompt === undefined
      ? {}
      : { systemPrompt: o.systemPrompt ?? DEFAULT_SYSTEM_PROMPT_TEXT }),
    model,
    call: { ...o.call },
    tools: askUser ? { ...tools, clientTools: withAskUser(tools.clientTools) } : tools,
    limits: defaultLimits(o.limits),
    context: {
      ...defaultContextPolicy(),
      ...context,
      ...(summary ? { summaryModel: summary } : {}),
      ...(masking === false
        ? {}
        : { mask: { ...DEFAULT_MASK_POLICY, ...(counted ? { byCost: false } : {}), ...masking } }),
    },
    ...(o.session && Object.keys(o.session).length > 0 ? { session: o.session } : {}),
    ...(o.fleet && Object.keys(o.fleet).length > 0 ? { fleet: o.fleet } : {}),
    ...(agents ? { agents } : {}),
    ...(o.plan === undefined ? {} : { plan: planInSpec(o.plan) }),
    ...(o.hooks ? { hooks: o.hooks } : {}),
    ...(o.stream ? { stream: true } : {}),
    ...(o.searchAttributes === false ? { searchAttributes: false } : {}),
    ...(o.eval ? { eval: o.eval } : {}),
  };
}

/** The plan as the run keeps it: ids and `done` filled in; one with problems as given (the check names them). */
function planInSpec(plan: NonNullable<AgentOptions['plan']>): PlanItem[] {
  const read = planOf(plan);
  return 'plan' in read ? read.plan : (plan as PlanItem[]);
}
