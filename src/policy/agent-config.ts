/** Building a full agent config from the few options a caller usually gives. */
import type { AgentOptions } from '../contracts/agent-options';
import type { ToolSelection } from '../contracts/tool-catalog';

import { defaultContextPolicy } from './context-plan';
import { defaultLimits, limitProblems } from './limits';
import { modelNameProblem, modelRefOf } from './model-ref';
import { resolverPolicy } from './resolver';
import { patienceProblem } from './rate-limit-wait';
import { priorityProblem, tenantProblem } from './tenancy';

import type { AgentConfig, MaskPolicy, PlanItem } from '../contracts/agent-run';
import { DEFAULT_MASK_POLICY } from './masking';
import { callSettingProblems } from './call-settings';
import { clientToolProblems } from './tool-selection';
import { subAgentProblems } from './sub-agents';
import { DEFAULT_SYSTEM_PROMPT_TEXT } from './system-prompt';
import { withAskUser } from './ask-user';
import { planOf } from './plan';

export const DEFAULT_SYSTEM_PROMPT = DEFAULT_SYSTEM_PROMPT_TEXT;

/** The run's masking: the caller's, or the default where masking is on by default. */
function maskOf(options: AgentOptions): { mask?: MaskPolicy } {
  const { masking } = options;
  if (masking === false || (masking === undefined && options.kind === 'pev')) return {};
  const counted = masking !== undefined && (masking.keepResults !== undefined || masking.batch !== undefined);
  return { mask: { ...DEFAULT_MASK_POLICY, ...(counted ? { byCost: false } : {}), ...(masking ?? {}) } };
}

/** The plan as the run keeps it: ids and `done` filled in; one with problems as given (`configProblems` refuses it). */
function planInConfig(plan: AgentOptions['plan']): AgentConfig['plan'] {
  if (plan === undefined) return undefined;
  const read = planOf(plan);
  // Kept as given, the plan's problems stay for `configProblems` to name.
  return 'plan' in read ? read.plan : (plan as PlanItem[]);
}

/** Problems with the models the options name, one line each: the only check the config cannot hold. */
export function modelOptionProblems(options: AgentOptions): string[] {
  const names: [string, unknown][] = [
    ['model', options.model],
    ...(options.fallbacks ?? []).map((f, i): [string, unknown] => [`fallbacks[${i}]`, f]),
    ...(options.budget ?? []).map((b, i): [string, unknown] => [`budget[${i}].model`, b.model]),
    ...(options.context?.summaryModel === undefined
      ? []
      : [['context.summaryModel', options.context.summaryModel] as [string, unknown]]),
  ];
  return names.flatMap(([where, value]) => {
    const problem = modelNameProblem(value);
    return problem ? [`${where}: ${problem}`] : [];
  });
}

/** The full config of a run. Model names are parsed here, once; throws on one {@link modelOptionProblems} reports. */
export function buildAgentConfig(options: AgentOptions): AgentConfig {
  const tools: ToolSelection = { ...(options.tools ?? {}) };
  if (options.approve?.length) tools.approve = [...(tools.approve ?? []), ...options.approve];
  if (options.askUser) tools.clientTools = withAskUser(tools.clientTools);
  const { summaryModel, ...context } = options.context ?? {};
  return {
    kind: options.kind ?? 'react',
    task: options.task,
    systemPrompt: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    resolver: resolverPolicy(modelRefOf(options.model), (options.fallbacks ?? []).map(modelRefOf), {
      ...(options.attemptsPerProvider === undefined ? {} : { attemptsPerProvider: options.attemptsPerProvider }),
      ...(options.rateLimitPatienceMs === undefined ? {} : { rateLimitPatienceMs: options.rateLimitPatienceMs }),
      ...(options.budget ? { budget: options.budget.map((rule) => ({ ...rule, model: modelRefOf(rule.model) })) } : {}),
    }),
    limits: defaultLimits(options.limits),
    tools,
    approvals: options.approvals,
    hooks: options.hooks,
    context: {
      ...defaultContextPolicy(),
      ...context,
      ...(summaryModel === undefined ? {} : { summaryModel: modelRefOf(summaryModel) }),
      ...maskOf(options),
    },
    maxTokens: options.maxTokens,
    temperature: options.temperature,
    topP: options.topP,
    stopSequences: options.stopSequences,
    thinkingBudget: options.thinkingBudget,
    responseFormat: options.responseFormat,
    toolChoice: options.toolChoice,
    stream: options.stream,
    plan: planInConfig(options.plan),
    continueAsNewAfterTurns: options.continueAsNewAfterTurns,
    searchAttributes: options.searchAttributes,
    activityTaskQueue: options.activityTaskQueue,
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    ...(options.priority === undefined ? {} : { priority: options.priority }),
    ...(options.expectedCostUsd === undefined ? {} : { expectedCostUsd: options.expectedCostUsd }),
    ...(options.from ? { from: options.from } : {}),
    ...(options.idleWaitMs !== undefined ? { idleWaitMs: options.idleWaitMs } : {}),
    ...(options.agents && Object.keys(options.agents).length > 0 ? { agents: options.agents } : {}),
  };
}

/** Problems with where a run's conversation begins and how long it waits for a follow-up. */
function sessionProblems(config: AgentConfig): string[] {
  const problems: string[] = [];
  const { from, idleWaitMs } = config;
  if (from && !(typeof from.runId === 'string' && from.runId && typeof from.conversationId === 'string'))
    problems.push('from needs the run id and conversation id to go on from');
  if (from?.atTurn !== undefined && !(Number.isInteger(from.atTurn) && from.atTurn >= 1))
    problems.push(`the turn to fork at must be a whole number of at least 1, got ${from.atTurn}`);
  if (idleWaitMs !== undefined && !(Number.isInteger(idleWaitMs) && idleWaitMs > 0))
    problems.push(`idleWaitMs must be a whole number of milliseconds above 0, got ${idleWaitMs}`);
  return problems;
}

/** Problems with a config, one readable line each; empty when it can run. */
export function configProblems(config: AgentConfig): string[] {
  const problems = limitProblems(config.limits);
  // A fork may go on from its last turn's tool results without a new task.
  const forkWithoutTask = config.from?.atTurn !== undefined && config.task === '';
  if ((typeof config.task !== 'string' || config.task.trim() === '') && !forkWithoutTask)
    problems.push('the task is empty');
  problems.push(...sessionProblems(config));
  const models: unknown[] = [
    config.resolver.primary,
    ...config.resolver.fallbacks,
    ...(config.resolver.budget ?? []).map((b) => b.model),
    ...(config.context.summaryModel === undefined ? [] : [config.context.summaryModel]),
  ];
  for (const model of models) {
    const problem = modelNameProblem(model);
    if (problem) problems.push(problem);
  }
  if (!(config.resolver.attemptsPerProvider >= 1)) problems.push('attemptsPerProvider must be at least 1');
  const patience = config.resolver.rateLimitPatienceMs;
  const patienceIssue = patience === undefined ? undefined : patienceProblem(patience);
  if (patienceIssue) problems.push(patienceIssue);
  if (config.tenant !== undefined) problems.push(...[tenantProblem(config.tenant)].filter((p) => p !== undefined));
  if (config.priority !== undefined)
    problems.push(...[priorityProblem(config.priority)].filter((p) => p !== undefined));
  const expected = config.expectedCostUsd;
  if (expected !== undefined && !(typeof expected === 'number' && Number.isFinite(expected) && expected > 0))
    problems.push(`expectedCostUsd must be a number of USD above 0, got ${String(expected)}`);
  const { thresholdRatio, keepRecentRatio } = config.context;
  if (!(thresholdRatio > 0 && thresholdRatio <= 1))
    problems.push(`context.thresholdRatio must be in (0, 1], got ${thresholdRatio}`);
  if (!(keepRecentRatio > 0 && keepRecentRatio < thresholdRatio))
    problems.push('context.keepRecentRatio must be positive and below thresholdRatio');
  const { mask } = config.context;
  if (mask && !(Number.isInteger(mask.keepResults) && mask.keepResults >= 0))
    problems.push(`masking keepResults must be a whole number (0 or more), got ${mask.keepResults}`);
  if (mask && !(Number.isInteger(mask.batch) && mask.batch >= 1))
    problems.push(`masking batch must be a whole number of at least 1, got ${mask.batch}`);
  if (config.continueAsNewAfterTurns !== undefined && !(config.continueAsNewAfterTurns >= 1))
    problems.push('continueAsNewAfterTurns must be at least 1');
  if (config.plan !== undefined) {
    const plan = planOf(config.plan);
    if ('problems' in plan) problems.push(...plan.problems);
  }
  problems.push(
    ...callSettingProblems(config),
    ...clientToolProblems(config.tools.clientTools),
    ...subAgentProblems(config),
  );
  return problems;
}
