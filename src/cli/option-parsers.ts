/** Commander option parsers of the CLI and what they build (one readable line per bad value). */
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { AgentClientError } from '../client';
import type { ModelRef } from '../contracts/model-ref';
import type { PevOptions } from '../contracts/pev-run';
import { modelNameProblem, parseModelRef } from '../policy/model-ref';

/** Commander parser for a TCP port option. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new InvalidArgumentError(`"${value}" is not a port (1-65535).`);
  return port;
}

/** Commander parser for a positive number of seconds. */
export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidArgumentError(`"${value}" is not a positive number of seconds.`);
  return seconds;
}

export const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive integer.`);
  return n;
};
/** Commander parser of a model spec: parsed here, once; the run carries the ref. */
export const spec = (value: string): ModelRef => {
  const problem = modelNameProblem(value);
  if (problem) throw new InvalidArgumentError(`${problem}.`);
  return parseModelRef(value);
};
/** Environment variable with the default model spec of `run`. */
export const MODEL_ENV = 'DURABLE_AGENTS_MODEL';

/** Commander parser of a repeatable `--fallback`. */
export const fallbackModel = (value: string, previous: ModelRef[] = []): ModelRef[] => [...previous, spec(value)];

/** The model of `run`: `--model`, else `$DURABLE_AGENTS_MODEL` (parsed alike); refuses when there is none. */
export function runModel(o: RunOptions, env: NodeJS.ProcessEnv): ModelRef {
  if (o.model) return o.model;
  const value = env[MODEL_ENV];
  if (!value) throw new AgentClientError(`no model: pass --model provider/model or set ${MODEL_ENV}`);
  const problem = modelNameProblem(value);
  if (problem) throw new AgentClientError(`${MODEL_ENV}: ${problem}`);
  return parseModelRef(value);
}

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function parseArgsJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AgentClientError(`--args is not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new AgentClientError('--args must be a JSON object, e.g. \'{"path":"notes.md"}\'');
  return value as Record<string, unknown>;
}

export interface RunOptions {
  agent: string;
  model?: ModelRef;
  fallback?: ModelRef[];
  maxTurns?: number;
  tools?: string;
  mcp?: string;
  approve?: string[];
  workspace?: string;
  detach?: boolean;
  json?: boolean;
  stream?: boolean;
  watch?: boolean;
  mode?: string;
  roleModel?: [string, ModelRef][];
  prompts?: string;
  maxPlanningRounds?: number;
  maxExecutorRounds?: number;
  maxCycles?: number;
  confirmPlan?: boolean;
}

export const roleModel = (value: string, previous: [string, ModelRef][] = []): [string, ModelRef][] => {
  const [role, model] = value.split('=', 2);
  if (!role || !model)
    throw new InvalidArgumentError(`"${value}" is not role=provider/model (e.g. executor=openai/gpt-4o-mini).`);
  return [...previous, [role, spec(model)]];
};

/** The `--agent pev` options of `run`, or undefined when none was given. */
export function pevOptionsOf(o: RunOptions): PevOptions | undefined {
  const limits = {
    ...(o.maxPlanningRounds ? { maxPlanningRounds: o.maxPlanningRounds } : {}),
    ...(o.maxExecutorRounds ? { maxExecutorRounds: o.maxExecutorRounds } : {}),
    ...(o.maxCycles ? { maxCycles: o.maxCycles } : {}),
  };
  const given =
    o.mode !== undefined ||
    o.roleModel?.length ||
    o.prompts !== undefined ||
    o.confirmPlan ||
    Object.keys(limits).length > 0;
  if (!given) return undefined;
  if (o.agent !== 'pev')
    throw new AgentClientError(
      '--mode, --role-model, --prompts, --confirm-plan and the round limits apply to --agent pev only',
    );
  if (o.mode !== undefined && o.mode !== 'pev' && o.mode !== 'plan')
    throw new AgentClientError(`--mode must be pev or plan, got "${o.mode}"`);
  let promptsDir: string | undefined;
  if (o.prompts) {
    promptsDir = path.resolve(o.prompts);
    if (!fs.statSync(promptsDir, { throwIfNoEntry: false })?.isDirectory())
      throw new AgentClientError(`--prompts ${promptsDir} is not a directory`);
  }
  return {
    ...(o.mode ? { mode: o.mode as PevOptions['mode'] } : {}),
    ...(o.roleModel?.length ? { models: Object.fromEntries(o.roleModel) } : {}),
    ...(promptsDir ? { promptsDir } : {}),
    ...(Object.keys(limits).length ? { limits } : {}),
    ...(o.confirmPlan ? { confirmPlan: true } : {}),
  };
}
