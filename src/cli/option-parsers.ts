/** Commander option parsers of the CLI and what they build (one readable line per bad value). */
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { AgentClientError } from '../client';
import type { PevOptions } from '../contracts/pev-run';
import { modelNameProblem } from '../policy/model-ref';
import { priorityProblem, tenantProblem } from '../policy/tenancy';
import type { AgentLimits } from '../contracts/agent-run';

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
/** Commander parser of a model spec, checked by the one parser the client parses it with. */
export const spec = (value: string): string => {
  const problem = modelNameProblem(value);
  if (problem) throw new InvalidArgumentError(`${problem}.`);
  return value;
};
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Commander parser for any finite number (a range is checked where the value is used). */
export const number = (value: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`"${value}" is not a number.`);
  return n;
};

/** Commander parser for a positive number (e.g. a cost in USD). */
export const positiveNumber = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`"${value}" is not a positive number.`);
  return n;
};

/** Commander parser for a duration: `30s`, `5m`, `2h`, `1d`, or milliseconds. */
export const duration = (value: string): number => {
  let ms: number;
  try {
    ms = msToNumber(/^\d+$/.test(value) ? Number(value) : (value as Duration));
  } catch {
    ms = NaN;
  }
  if (!Number.isFinite(ms) || ms <= 0)
    throw new InvalidArgumentError(`"${value}" is not a duration (e.g. 30s, 5m, 2h, 1d).`);
  return ms;
};

/** Commander parser for `tool=duration` (repeatable): a per-tool timeout. */
export const toolTimeout = (value: string, previous: Record<string, number> = {}): Record<string, number> => {
  const at = value.indexOf('=');
  const tool = at > 0 ? value.slice(0, at).trim() : '';
  if (!tool) throw new InvalidArgumentError(`"${value}" is not tool=duration (e.g. fs_read=30s).`);
  return { ...previous, [tool]: duration(value.slice(at + 1).trim()) };
};

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

/** The model-call flags of a command that starts runs (`call-options.ts` declares and reads them). */
export interface CallFlags {
  systemPrompt?: string;
  systemPromptFile?: string;
  temperature?: number;
  topP?: number;
  stop?: string[];
  maxOutputTokens?: number;
  thinking?: number;
  responseFormat?: string;
  toolChoice?: string;
}

export interface RunOptions extends CallFlags {
  agent: string;
  agents?: string;
  tenant?: string;
  priority?: number;
  id?: string;
  taskFile?: string;
  maxTokens?: number;
  maxCost?: number;
  maxToolCallsPerTurn?: number;
  approvalTimeout?: number;
  toolTimeout?: Record<string, number>;
  model?: string;
  fallback?: string[];
  maxTurns?: number;
  tools?: string;
  mcp?: string;
  clientTools?: string;
  approve?: string[];
  workspace?: string;
  detach?: boolean;
  json?: boolean;
  stream?: boolean;
  watch?: boolean;
  mode?: string;
  roleModel?: string[];
  prompts?: string;
  maxPlanningRounds?: number;
  maxExecutorRounds?: number;
  maxCycles?: number;
  confirmPlan?: boolean;
  parallel?: number;
  continue?: string;
  idleWait?: number;
  businessContext?: string;
  roleContext?: string[];
}

export const roleModel = (value: string, previous: string[] = []): string[] => {
  const [role, model] = value.split('=', 2);
  if (!role || !model)
    throw new InvalidArgumentError(`"${value}" is not role=provider/model (e.g. executor=openai/gpt-4o-mini).`);
  spec(model);
  return [...previous, value];
};

/** The `--agent pev` options of `run`, or undefined when none was given. */
export function pevOptionsOf(o: RunOptions): PevOptions | undefined {
  const limits = {
    ...(o.maxPlanningRounds ? { maxPlanningRounds: o.maxPlanningRounds } : {}),
    ...(o.maxExecutorRounds ? { maxExecutorRounds: o.maxExecutorRounds } : {}),
    ...(o.maxCycles ? { maxCycles: o.maxCycles } : {}),
  };
  const given =
    o.businessContext !== undefined ||
    o.roleContext?.length ||
    o.mode !== undefined ||
    o.roleModel?.length ||
    o.prompts !== undefined ||
    o.confirmPlan ||
    o.parallel !== undefined ||
    Object.keys(limits).length > 0;
  if (!given) return undefined;
  if (o.agent !== 'pev')
    throw new AgentClientError(
      '--mode, --role-model, --prompts, --business-context, --role-context, --confirm-plan, --parallel and the ' +
        'round limits apply to --agent pev only',
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
    ...(o.roleModel?.length
      ? { models: Object.fromEntries(o.roleModel.map((v) => v.split('=', 2) as [string, string])) }
      : {}),
    ...(promptsDir ? { promptsDir } : {}),
    ...(Object.keys(limits).length ? { limits } : {}),
    ...(o.confirmPlan ? { confirmPlan: true } : {}),
    ...(o.parallel !== undefined ? { parallel: o.parallel } : {}),
    ...businessContextOf(o),
  };
}

/** `--business-context FILE` and `--role-context role=FILE`: the run's own business context, read here. */
function businessContextOf(o: RunOptions): Pick<PevOptions, 'businessContext'> {
  const read = (flag: string, file: string): string => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new AgentClientError(`${flag} ${file} cannot be read: ${(err as Error).message}`);
    }
  };
  const roles = (o.roleContext ?? []).map((value) => {
    const at = value.indexOf('=');
    if (at <= 0) throw new AgentClientError(`--role-context "${value}" is not role=FILE (e.g. executor=executor.md)`);
    return [value.slice(0, at), read('--role-context', value.slice(at + 1))] as const;
  });
  const shared = o.businessContext === undefined ? undefined : read('--business-context', o.businessContext);
  if (shared === undefined && roles.length === 0) return {};
  return {
    businessContext: {
      ...(shared !== undefined ? { shared } : {}),
      ...(roles.length ? { roles: Object.fromEntries(roles) } : {}),
    },
  };
}

/** The run limits `run`'s flags set. */
export function limitsOf(o: RunOptions): Partial<AgentLimits> {
  return {
    ...(o.maxTurns !== undefined ? { maxTurns: o.maxTurns } : {}),
    ...(o.maxTokens !== undefined ? { maxTotalTokens: o.maxTokens } : {}),
    ...(o.maxCost !== undefined ? { maxCostUsd: o.maxCost } : {}),
    ...(o.maxToolCallsPerTurn !== undefined ? { maxToolCallsPerTurn: o.maxToolCallsPerTurn } : {}),
    ...(o.approvalTimeout !== undefined ? { approvalTimeoutMs: o.approvalTimeout } : {}),
    ...(o.toolTimeout ? { toolTimeoutsMs: o.toolTimeout } : {}),
  };
}

/** Commander parser of a tenant name (a fairness key). */
export const tenantArg = (value: string): string => {
  const problem = tenantProblem(value);
  if (problem) throw new InvalidArgumentError(`${problem}.`);
  return value;
};

/** Commander parser of a run's priority, 1 to 5. */
export const priorityArg = (value: string): number => {
  const n = value.trim() === '' ? NaN : Number(value);
  const problem = priorityProblem(n);
  if (problem) throw new InvalidArgumentError(`${problem.replace(/got NaN$/, `got "${value}"`)}.`);
  return n;
};
