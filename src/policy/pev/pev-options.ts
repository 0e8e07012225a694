/** PEV options checked and resolved to their defaults, and the progress a new run starts from. */
import type { PevOptions, ResolvedPevOptions } from '../../contracts/pev-run';
import { type PevLimits, type PevProgress } from '../../contracts/pev-progress';
import { modelNameProblem, modelRefOf } from '../model-ref';
import { CORE_ROLE_NAMES } from './roles';

const positiveInt = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 1;
const isCoreRole = (role: string): boolean => (CORE_ROLE_NAMES as readonly string[]).includes(role);
const NO_SUCH_ROLE = `no such role; roles: ${CORE_ROLE_NAMES.join(', ')}`;

/** Problems with user-given options, one readable line each. */
export function pevOptionProblems(options: PevOptions | undefined): string[] {
  if (!options) return [];
  const problems: string[] = [];
  if (options.mode !== undefined && options.mode !== 'pev' && options.mode !== 'plan')
    problems.push(`pev.mode must be "pev" or "plan", got "${String(options.mode)}"`);
  for (const [name, value] of Object.entries(options.limits ?? {})) {
    if (!(name in DEFAULT_PEV_LIMITS))
      problems.push(`pev.limits.${name} is not a limit; known: ${Object.keys(DEFAULT_PEV_LIMITS).join(', ')}`);
    else if (!positiveInt(value)) problems.push(`pev.limits.${name} must be a positive integer, got ${String(value)}`);
  }
  for (const [role, model] of Object.entries(options.models ?? {})) {
    const problem = isCoreRole(role) ? modelNameProblem(model) : NO_SUCH_ROLE;
    if (problem) problems.push(`pev.models.${role}: ${problem}`);
  }
  problems.push(...businessContextProblems(options.businessContext));
  if (options.parallel !== undefined && !positiveInt(options.parallel))
    problems.push(`pev.parallel must be a positive integer, got ${String(options.parallel)}`);
  if (options.stopOnFailedTodo !== undefined && typeof options.stopOnFailedTodo !== 'boolean')
    problems.push(`pev.stopOnFailedTodo must be true or false, got ${String(options.stopOnFailedTodo)}`);
  return problems;
}

/** Problems with a run's business context: texts, for core roles (a role of its own needs a prompts directory). */
function businessContextProblems(context: PevOptions['businessContext']): string[] {
  if (context === undefined) return [];
  const problems: string[] = [];
  if (context.shared !== undefined && typeof context.shared !== 'string')
    problems.push('pev.businessContext.shared must be a text');
  for (const [role, text] of Object.entries(context.roles ?? {})) {
    if (!isCoreRole(role)) problems.push(`pev.businessContext.roles.${role}: ${NO_SUCH_ROLE}`);
    else if (typeof text !== 'string') problems.push(`pev.businessContext.roles.${role} must be a text`);
  }
  return problems;
}

export function resolvePevOptions(options: PevOptions = {}): ResolvedPevOptions {
  const mode = options.mode ?? 'pev';
  const preset: Partial<PevLimits> = mode === 'plan' ? { maxPlanningRounds: 1, maxCycles: 1 } : {};
  return {
    mode,
    models: Object.fromEntries(Object.entries(options.models ?? {}).map(([role, model]) => [role, modelRefOf(model)])),
    limits: { ...DEFAULT_PEV_LIMITS, ...preset, ...options.limits },
    ...(options.promptsDir ? { promptsDir: options.promptsDir } : {}),
    structuredOutput: options.structuredOutput ?? true,
    confirmPlan: options.confirmPlan ?? false,
    ...(options.businessContext ? { businessContext: options.businessContext } : {}),
    ...(options.parallel !== undefined ? { parallel: options.parallel } : {}),
    ...(options.stopOnFailedTodo ? { stopOnFailedTodo: true } : {}),
  };
}

export const DEFAULT_PEV_LIMITS: PevLimits = { maxPlanningRounds: 3, maxExecutorRounds: 10, maxCycles: 3 };

export const initialProgress = (): PevProgress => ({
  phase: 'planning',
  cycle: 1,
  round: 0,
  todos: [],
  improvements: [],
  trace: [],
});
