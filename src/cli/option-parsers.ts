/** Commander option parsers of the CLI and what they build (one readable line per bad value). */
import { InvalidArgumentError } from 'commander';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { AgentClientError } from '../client';
import { errorText } from '../common/error-text';
import { PORT, parseDecimal, type NumberRange } from '../common/decimal';
import { modelSpec, positiveInteger } from '../kinds';
import { priorityProblem, tenantProblem } from '../policy/tenancy';
import type { AgentLimits } from '../contracts/run-spec';
import { parseJson } from '../common/json-text';
import { definedFields, isPlainObject } from '../common/type-helpers';

/** A reader that throws a one-line reason, as commander wants it for a flag's value. */
export const commanderParser =
  <V>(read: (value: string, previous: V | undefined) => V) =>
  (value: string, previous?: V): V => {
    try {
      return read(value, previous);
    } catch (err) {
      const reason = errorText(err);
      throw new InvalidArgumentError(reason.endsWith('.') ? reason : `${reason}.`);
    }
  };

/** Commander parser of a number in decimal notation in `range`. */
export const decimalArg = (range: NumberRange) => commanderParser((value: string) => parseDecimal(value, range));

/** Commander parser for a TCP port option. */
export const parsePort = decimalArg(PORT);

/** Commander parser for a number of seconds to wait, up to a day. */
export const parseSeconds = decimalArg({ what: 'a number of seconds', min: 1, max: 86_400 });

export const positiveInt = commanderParser(positiveInteger);
/** Commander parser of a model spec, checked by the one parser the client parses it with. */
export const spec = commanderParser(modelSpec);
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Commander parser for any number in decimal notation (its range is checked where the value is used). */
export const number = decimalArg({ what: 'a number' });

/** Commander parser for a cost in USD a run or a tenant may spend: from a millionth of a dollar to a billion. */
export const usdArg = decimalArg({ what: 'a number of USD', min: 0.000001, max: 1_000_000_000 });

/** Commander parser for a duration: `30s`, `5m`, `2h`, `1d`, or milliseconds. */
export const duration = (value: string): number => {
  let ms: number;
  try {
    ms = msToNumber(/^\d+$/.test(value) ? Number(value) : (value as Duration));
  } catch {
    ms = NaN;
  }
  if (!Number.isFinite(ms) || ms < 0)
    throw new InvalidArgumentError(`"${value}" is not a duration (e.g. 30s, 5m, 2h, 1d).`);
  if (ms < 1) throw new InvalidArgumentError(`the duration must be at least 1 ms, got "${value}".`);
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
    value = parseJson(text);
  } catch (err) {
    throw new AgentClientError(`--args is not valid JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(value)) throw new AgentClientError('--args must be a JSON object, e.g. \'{"path":"notes.md"}\'');
  return value;
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
  expectedCost?: number;
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
  mcpServer?: string[];
  mcp?: string;
  clientTools?: string;
  approve?: string[];
  workspace?: string;
  detach?: boolean;
  json?: boolean;
  stream?: boolean;
  watch?: boolean;
  continue?: string;
  idleWait?: number;
  messages?: string;
  plan?: string;
  askUser?: boolean;
}

/** The run limits `run`'s flags set. */
export const limitsOf = (o: RunOptions): Partial<AgentLimits> =>
  definedFields({
    maxTurns: o.maxTurns,
    maxTotalTokens: o.maxTokens,
    maxCostUsd: o.maxCost,
    maxToolCallsPerTurn: o.maxToolCallsPerTurn,
    approvalTimeoutMs: o.approvalTimeout,
    toolTimeoutsMs: o.toolTimeout,
  });

/** Commander parser of a tenant name (a fairness key). */
export const tenantArg = (value: string): string => {
  const problem = tenantProblem(value);
  if (problem) throw new InvalidArgumentError(`${problem}.`);
  return value;
};

/** Commander parser of a run's priority, 1 to 5. */
export const priorityArg = commanderParser((value: string): number => {
  const n = parseDecimal(value, { what: 'a whole number from 1 (first) to 5 (last)' });
  const problem = priorityProblem(n);
  if (problem) throw new Error(problem);
  return n;
});
