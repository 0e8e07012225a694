/**
 * The seeded plan of a chaos scenario: which runs (agent kind, provider, streaming, approvals,
 * continue-as-new, number of steps), in which groups they start, and where the worker is killed.
 * The same seed gives the same plan; what the kills hit depends on timing, which no seed fixes.
 */

/** Where a kill lands, each chosen by watching the runs (see `kill-points.ts`). */
export const KILL_POINTS = [
  'model_call_streaming',
  'model_call_plain',
  'tool_call',
  'workflow_task',
  'approval_wait',
  'continue_as_new',
  'child_run',
] as const;
export type KillPoint = (typeof KILL_POINTS)[number];

/** A seeded pseudo-random source (mulberry32): small, fast and the same on every platform. */
export class Prng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

/** One run of the scenario. */
export interface RunSpec {
  /** `r07`: written into the task, so every provider request and tool call names its run. */
  tag: string;
  kind: 'react' | 'pev';
  model: 'anthropic/claude-sonnet-4-6' | 'openai/gpt-4o-mini';
  /** Publish tokens to watchers (the provider is streamed from either way). */
  stream: boolean;
  /** Every call of `record_step` waits for approval. */
  approval: boolean;
  /** Turns per run before continue-as-new; undefined for none. */
  continueAsNewAfterTurns?: number;
  /** Side-effecting tool calls the run makes: ReAct turns with a tool call, or pev todos. */
  steps: number;
  /** ReAct only: each step is delegated to a sub-agent, a child run that makes the tool call. */
  delegate?: boolean;
  /** Index of the kill this run's group starts before. */
  group: number;
}

export interface ChaosPlan {
  seed: number;
  runs: RunSpec[];
  /** One kill per group, in order. */
  kills: KillPoint[];
}

/** The final text a run must end with. */
export const expectedFinalText = (run: RunSpec): string =>
  run.kind === 'react' ? `${run.tag} finished after ${run.steps} steps.` : `${run.tag} verified ${run.steps} steps.`;

/**
 * What a run needs so that a kill of this point can find it. Points found by a tool's call or answer
 * need a run that asks for no approval: approvals are held back until the approval-wait kill.
 */
function fits(point: KillPoint, run: RunSpec): boolean {
  switch (point) {
    case 'tool_call':
    case 'workflow_task':
      return !run.approval;
    case 'model_call_streaming':
      return run.stream;
    case 'model_call_plain':
      return !run.stream;
    case 'approval_wait':
      return run.approval;
    case 'child_run':
      return run.delegate === true && !run.approval;
    case 'continue_as_new':
      return (
        run.kind === 'react' &&
        !run.approval &&
        run.continueAsNewAfterTurns !== undefined &&
        run.steps > run.continueAsNewAfterTurns
      );
    default:
      return true;
  }
}

function randomRun(rng: Prng, index: number, group: number): RunSpec {
  const kind = rng.chance(0.4) ? 'pev' : 'react';
  const approval = rng.chance(0.2);
  return {
    tag: `r${String(index).padStart(3, '0')}`,
    kind,
    model: rng.pick(['anthropic/claude-sonnet-4-6', 'openai/gpt-4o-mini'] as const),
    stream: rng.chance(0.5),
    approval,
    ...(rng.chance(0.3) ? { continueAsNewAfterTurns: 2 } : {}),
    steps: kind === 'react' ? rng.int(2, 5) : rng.int(1, 3),
    ...(kind === 'react' && !approval && rng.chance(0.2) ? { delegate: true } : {}),
    group,
  };
}

/** Makes a run fit `point`, keeping whatever else the seed chose. */
function fitted(run: RunSpec, point: KillPoint): RunSpec {
  switch (point) {
    case 'model_call_streaming':
      return { ...run, stream: true };
    case 'model_call_plain':
      return { ...run, stream: false };
    case 'approval_wait': {
      // Approvals are looked for in the run itself: its calls are its own, not a child's.
      const { delegate: _delegate, ...own } = run;
      return { ...own, approval: true };
    }
    case 'tool_call':
    case 'workflow_task':
      return { ...run, approval: false };
    case 'continue_as_new':
      return { ...run, kind: 'react', approval: false, continueAsNewAfterTurns: 2, steps: Math.max(run.steps, 4) };
    case 'child_run':
      return { ...run, kind: 'react', approval: false, delegate: true, steps: Math.max(run.steps, 2) };
    default:
      return run;
  }
}

/**
 * `runs` runs in `kills` groups; every kill point comes up at least once when `kills` allows,
 * and each group holds at least one run its kill can land in.
 */
export function chaosPlan(seed: number, runs: number, kills: number): ChaosPlan {
  if (kills < 1 || runs < kills)
    throw new Error(`a chaos plan needs 1 ≤ kills ≤ runs (got ${kills} kills, ${runs} runs)`);
  const rng = new Prng(seed);
  const points = rng.shuffle([
    ...KILL_POINTS.slice(0, Math.min(kills, KILL_POINTS.length)),
    ...Array.from({ length: Math.max(0, kills - KILL_POINTS.length) }, () => rng.pick(KILL_POINTS)),
  ]);
  const specs: RunSpec[] = [];
  for (let i = 0; i < runs; i++) specs.push(randomRun(rng, i, Math.floor((i * kills) / runs)));
  points.forEach((point, group) => {
    const members = specs.filter((run) => run.group === group);
    if (!members.some((run) => fits(point, run))) {
      const chosen = rng.pick(members);
      specs[specs.indexOf(chosen)] = fitted(chosen, point);
    }
  });
  return { seed, runs: specs, kills: points };
}

/** The seed from `CHAOS_SEED`, else a fresh one. */
export function chaosSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.CHAOS_SEED;
  if (raw === undefined || raw === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(raw);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`CHAOS_SEED="${raw}" is not a non-negative integer.`);
  return seed;
}
