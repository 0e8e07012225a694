/**
 * The Planner → Executor → Verifier kind at the edges: its start options (`pev`) and their flags,
 * the role models it names, its details, its phase and todos in `state`, the plan a run started
 * with `confirmPlan` waits on, and the role whose structured answer each phase streams.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentStateView } from '../contracts/agent-run';
import { modelLabel } from '../contracts/model-ref';
import type { PevLimits } from '../contracts/pev-progress';
import type { PevOptions, PevStateView } from '../contracts/pev-run';
import { PEV_FACTS } from '../policy/pev/pev-facts';
import { modelRefOf } from '../policy/model-ref';
import { pevOptionProblems } from '../policy/pev/pev-options';
import { todoLine } from '../policy/pev/plan-progress';
import { keyValues, modelSpec, oneOf, positiveInteger } from './flag-values';
import { kindFlag, type KindEdge, type KindFlag } from './kind-edge';

declare module './kind-edge' {
  interface KindStartOptions {
    /** Planner → Executor → Verifier options (kind `pev` only): mode, role models, limits, prompts, context. */
    pev?: PevOptions;
  }
}

/** A flag setting the pev limit `name`. */
const limitFlag = (flags: string, description: string, name: keyof PevLimits) =>
  kindFlag(flags, description, positiveInteger, (o: PevOptions, n: number) => ({
    ...o,
    limits: { ...o.limits, [name]: n },
  }));

function readFile(flag: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${flag} ${file} cannot be read: ${(err as Error).message}`, { cause: err });
  }
}

function directory(flag: string, dir: string): string {
  const resolved = path.resolve(dir);
  if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`${flag} ${resolved} is not a directory`);
  return resolved;
}

const context = (o: PevOptions, more: NonNullable<PevOptions['businessContext']>): PevOptions => ({
  ...o,
  businessContext: { ...o.businessContext, ...more },
});

const pevFlags: KindFlag<PevOptions>[] = [
  kindFlag(
    '--mode <mode>',
    'pev (planner/executor/verifier cycles) or plan (plan once, execute, summarise)',
    oneOf('mode', ['pev', 'plan'] as const),
    (o: PevOptions, mode) => ({ ...o, mode }),
  ),
  kindFlag(
    '--role-model <role=spec>',
    'model of one role, e.g. executor=openai/gpt-4o-mini (repeatable)',
    keyValues('role=provider/model (e.g. executor=openai/gpt-4o-mini)', modelSpec),
    (o: PevOptions, models) => ({ ...o, models: Object.fromEntries(models) }),
  ),
  kindFlag(
    '--prompts <dir>',
    'directory with <role>.md business context and optional core/<role>.md templates',
    undefined,
    (o: PevOptions, dir: string) => ({ ...o, promptsDir: directory('--prompts', dir) }),
  ),
  limitFlag('--max-planning-rounds <n>', 'planner rounds per cycle (default 3)', 'maxPlanningRounds'),
  limitFlag('--max-executor-rounds <n>', 'executor rounds per todo (default 10)', 'maxExecutorRounds'),
  limitFlag('--max-cycles <n>', 'planner/executor/verifier cycles (default 3)', 'maxCycles'),
  kindFlag(
    '--business-context <file>',
    'business context (Markdown) for every role of this run',
    undefined,
    (o: PevOptions, file: string) => context(o, { shared: readFile('--business-context', file) }),
  ),
  kindFlag(
    '--role-context <role=file>',
    'business context for one role, e.g. executor=executor.md (repeatable)',
    keyValues('role=FILE (e.g. executor=executor.md)'),
    (o: PevOptions, files) =>
      context(o, { roles: Object.fromEntries(files.map(([role, file]) => [role, readFile('--role-context', file)])) }),
  ),
  kindFlag(
    '--confirm-plan',
    'wait for `plan <id>` to approve each plan before executing it',
    undefined,
    (o: PevOptions) => ({ ...o, confirmPlan: true }),
  ),
  kindFlag(
    '--parallel <n>',
    'run the todos as child runs, N at a time (a todo after those it depends on)',
    positiveInteger,
    (o: PevOptions, parallel) => ({ ...o, parallel }),
  ),
  kindFlag(
    '--stop-on-failed-todo',
    'end the run when a todo fails (stop reason todo_failed) instead of moving on',
    undefined,
    (o: PevOptions) => ({ ...o, stopOnFailedTodo: true }),
  ),
];

const progressOf = (view: AgentStateView): PevStateView['pev'] | undefined => (view as Partial<PevStateView>).pev;

export const pevEdge: KindEdge<PevOptions> = {
  facts: PEV_FACTS,
  optionsKey: 'pev',
  optionProblems: pevOptionProblems,
  input: (config, pev) =>
    pev
      ? {
          config,
          pev: {
            ...pev,
            ...(pev.models
              ? { models: Object.fromEntries(Object.entries(pev.models).map(([r, m]) => [r, modelRefOf(m)])) }
              : {}),
          },
        }
      : { config },
  models: (pev) => Object.values(pev.models ?? {}),
  details: (pev) => [
    ...(pev.mode ? [`- **Mode** ${pev.mode}`] : []),
    ...(pev.parallel ? [`- **Todos** as child runs, ${pev.parallel} at a time`] : []),
    ...(pev.stopOnFailedTodo ? ['- **Stops** on a failed todo'] : []),
    ...(pev.models && Object.keys(pev.models).length
      ? [
          `- **Role models** ${Object.entries(pev.models)
            .map(([role, model]) => `${role}=${modelLabel(modelRefOf(model))}`)
            .join(', ')}`,
        ]
      : []),
  ],
  flags: pevFlags,
  stateLines(view) {
    const pev = progressOf(view);
    if (!pev) return [];
    const todo = pev.currentTodoId ? ` · todo ${pev.currentTodoId}` : '';
    return [
      `phase ${pev.phase} · cycle ${pev.cycle} · round ${pev.round}${todo}`,
      ...pev.todos.map((t) => `  ${todoLine(t)}`),
    ];
  },
  waiting(view) {
    const pev = progressOf(view);
    if (pev?.phase !== 'confirming') return undefined;
    return {
      what: `a decision on the plan of cycle ${pev.cycle}`,
      words: 'awaiting plan approval',
      commands: (id) => ({ approve: `plan ${id}`, reject: `plan ${id} --reject --feedback TEXT` }),
    };
  },
};
