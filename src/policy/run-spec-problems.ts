/**
 * The run spec's one check (docs/design.md, The run spec): every problem with a resolved spec, one
 * readable line each, by the record it is in. The client calls it before a start with the models it
 * knows, the workflow at the start, and the pin again with the worker's entries for the run's models
 * and its pinned tools: a problem none of them finds can only be one the worker's entries show.
 */
import type { ResolvedModelInfo } from '../contracts/model-info';
import type { AgentConfig } from '../contracts/run-spec';
import { callSettingProblems, missingChoiceTool, runModelProblems } from './call-settings';
import { limitProblems } from './limits';
import { modelNameProblem } from './model-ref';
import { planOf } from './plan';
import { patienceProblem } from './rate-limit-wait';
import { fleetProblems } from './tenancy';
import { clientToolProblems } from './tool-selection';
import { subAgentProblems } from './sub-agents';
import { evalSpecProblems } from './served-tools';
import { initialMessageProblems } from './initial-messages';

/** Problems with where the run's conversation begins, how long it waits for a follow-up, when it hands over. */
function sessionProblems({ session, task }: AgentConfig): string[] {
  const { from, initialMessages, idleWaitMs, continueAsNewAfterTurns } = session ?? {};
  const problems: string[] = [];
  // A fork may go on from its last turn's tool results without a new task.
  if ((typeof task !== 'string' || task.trim() === '') && from?.atTurn === undefined)
    problems.push('the task is empty');
  if (from && !(typeof from.runId === 'string' && from.runId && typeof from.conversationId === 'string'))
    problems.push('from needs the run id and conversation id to go on from');
  if (from?.atTurn !== undefined && !(Number.isInteger(from.atTurn) && from.atTurn >= 1))
    problems.push(`the turn to fork at must be a whole number of at least 1, got ${from.atTurn}`);
  if (from && initialMessages) problems.push('a run goes on from another run or from initialMessages, not both');
  if (initialMessages !== undefined) problems.push(...initialMessageProblems(initialMessages));
  if (idleWaitMs !== undefined && !(Number.isInteger(idleWaitMs) && idleWaitMs > 0))
    problems.push(`idleWaitMs must be a whole number of milliseconds above 0, got ${idleWaitMs}`);
  if (continueAsNewAfterTurns !== undefined && !(continueAsNewAfterTurns >= 1))
    problems.push('continueAsNewAfterTurns must be at least 1');
  return problems;
}

/** Problems with the run's models, their failover and their patience with rate limits. */
function modelProblems({ model, context }: AgentConfig): string[] {
  const models = [
    model.primary,
    ...model.fallbacks,
    ...(model.budget ?? []).map((b) => b.model),
    ...(context.summaryModel === undefined ? [] : [context.summaryModel]),
  ];
  const problems = models.flatMap((m) => modelNameProblem(m) ?? []);
  if (!(model.attemptsPerProvider >= 1)) problems.push('attemptsPerProvider must be at least 1');
  const patience = model.rateLimitPatienceMs === undefined ? undefined : patienceProblem(model.rateLimitPatienceMs);
  return patience ? [...problems, patience] : problems;
}

/** Problems with when the run compacts and how it masks. */
function contextProblems({ context }: AgentConfig): string[] {
  const { thresholdRatio, keepRecentRatio, mask } = context;
  const problems: string[] = [];
  if (!(thresholdRatio > 0 && thresholdRatio <= 1))
    problems.push(`context.thresholdRatio must be in (0, 1], got ${thresholdRatio}`);
  if (!(keepRecentRatio > 0 && keepRecentRatio < thresholdRatio))
    problems.push('context.keepRecentRatio must be positive and below thresholdRatio');
  if (mask && !(Number.isInteger(mask.keepResults) && mask.keepResults >= 0))
    problems.push(`masking keepResults must be a whole number (0 or more), got ${mask.keepResults}`);
  if (mask && !(Number.isInteger(mask.batch) && mask.batch >= 1))
    problems.push(`masking batch must be a whole number of at least 1, got ${mask.batch}`);
  return problems;
}

/**
 * Problems with a resolved run spec, one readable line each; empty when it can run. `models` are
 * the entries known for the run's models (none: what the run asks of them is not judged); `tools`
 * the run's pinned tools, once pinned.
 */
export function runSpecProblems(
  spec: AgentConfig,
  models: readonly ResolvedModelInfo[] = [],
  tools?: readonly { name: string }[],
): string[] {
  // A start written by code before the run spec gave its options flat, without these records.
  const records = ['model', 'call', 'tools', 'limits', 'context'] as const;
  const missing = records.filter((r) => typeof spec[r] !== 'object' || spec[r] === null);
  if (missing.length > 0)
    return [
      `the run spec has no ${missing.join(', ')} record: the run was started by code older than the run spec; ` +
        'run it on workers of that code (docs/upgrades.md)',
    ];
  const plan = spec.plan === undefined ? undefined : planOf(spec.plan);
  return [
    ...limitProblems(spec.limits),
    ...sessionProblems(spec),
    ...modelProblems(spec),
    ...fleetProblems(spec.fleet),
    ...contextProblems(spec),
    ...(plan && 'problems' in plan ? plan.problems : []),
    ...callSettingProblems(spec.call),
    ...clientToolProblems(spec.tools.clientTools),
    ...subAgentProblems(spec),
    ...evalSpecProblems(spec.eval),
    ...runModelProblems(spec, models),
    ...(tools ? missingChoiceTool(spec.call.toolChoice, tools) : []),
  ];
}
