/**
 * The run's model-call flags (`--system-prompt[-file]`, `--temperature`, `--top-p`, `--stop`,
 * `--max-output-tokens`, `--thinking`, `--response-format`, `--tool-choice`) as start options.
 * Values are range-checked with the client's own check (`callSettingProblems`), its problems named
 * by their flags.
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { AgentOptions } from '../contracts/agent-options';
import type { ResponseFormat, ToolChoice } from '../contracts/message-model';
import { UsageError } from './exit-codes';
import { readTextFile } from './json-file';
import { collect, number, positiveInt, type CallFlags } from './option-parsers';
import { parseJson } from '../common/json-text';
import { definedFields, isPlainObject } from '../common/type-helpers';
import { callSettingProblems } from '../policy/call-settings';

/** Declares the flags on a command that starts runs. */
export function callFlags(command: Command): Command {
  return command
    .option('--system-prompt <text>', "the run's system prompt (ReAct runs; default: the built-in one)")
    .option('--system-prompt-file <file>', 'read the system prompt from FILE')
    .option('--temperature <t>', 'sampling temperature, 0 to 2', number)
    .option('--top-p <p>', 'nucleus sampling, above 0 up to 1', number)
    .option('--stop <text>', 'a stop sequence (repeatable, at most 4)', collect)
    .option('--max-output-tokens <n>', 'the most tokens one model call may write', positiveInt)
    .option(
      '--thinking <budget>',
      'extended thinking with this many tokens (at least 1024) on models that think',
      positiveInt,
    )
    .option('--response-format <format>', 'the answer as `json`, or JSON following the JSON Schema in FILE')
    .option('--tool-choice <choice>', 'auto | none | required | a tool name the model must call');
}

const readText = (flag: string, file: string): string => readTextFile(path.resolve(file), flag);

function responseFormatOf(value: string): ResponseFormat {
  if (value === 'json') return { type: 'json' };
  if (value === 'text') return { type: 'text' };
  let schema: unknown;
  try {
    schema = parseJson(readText('--response-format', value));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--response-format ${path.resolve(value)} is not JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(schema))
    throw new UsageError(`--response-format ${path.resolve(value)} must hold a JSON Schema object`);
  const name =
    path
      .basename(value)
      .replace(/\.[^.]*$/, '')
      .replace(/[^a-zA-Z0-9_-]/g, '_')
      .slice(0, 64) || 'answer';
  return { type: 'json_schema', name, schema };
}

function toolChoiceOf(value: string): ToolChoice {
  return value === 'auto' || value === 'none' || value === 'required' ? value : { type: 'tool', name: value };
}

/** The system prompt and call settings the flags ask for; unset flags add nothing. */
export function callOptionsOf(o: CallFlags): Pick<AgentOptions, 'systemPrompt' | 'call'> {
  if (o.systemPrompt !== undefined && o.systemPromptFile !== undefined)
    throw new UsageError('--system-prompt and --system-prompt-file cannot be combined: pass one');
  const systemPrompt =
    o.systemPromptFile !== undefined ? readText('--system-prompt-file', o.systemPromptFile) : o.systemPrompt;
  if (systemPrompt !== undefined && systemPrompt.trim() === '') throw new UsageError('the system prompt is empty');
  const call = definedFields({
    temperature: o.temperature,
    topP: o.topP,
    stopSequences: o.stop,
    maxTokens: o.maxOutputTokens,
    thinkingBudget: o.thinking,
    ...(o.responseFormat === undefined ? {} : { responseFormat: responseFormatOf(o.responseFormat) }),
    ...(o.toolChoice === undefined ? {} : { toolChoice: toolChoiceOf(o.toolChoice) }),
  });
  // The client's own check, each problem named by the flag that set it.
  const problem = callSettingProblems(call)[0];
  if (problem) throw new UsageError(flagWords(problem));
  return {
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    ...(Object.keys(call).length > 0 ? { call } : {}),
  };
}

/** The flag of each call setting, for problems the client's check words by setting. */
const FLAG_OF: Record<string, string> = {
  temperature: '--temperature',
  topP: '--top-p',
  stopSequences: '--stop',
  maxTokens: '--max-output-tokens',
  thinkingBudget: '--thinking',
  responseFormat: '--response-format',
  toolChoice: '--tool-choice',
};

const flagWords = (problem: string): string =>
  problem
    .replace(/ \(the most output tokens per call\)/, '')
    .replace(new RegExp(`(?<![\\w-])(${Object.keys(FLAG_OF).join('|')})\\b`, 'g'), (s) => FLAG_OF[s]);
