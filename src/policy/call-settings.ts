/**
 * The model-call settings a run may ask for (output length, sampling, stop sequences, thinking,
 * output format, tool choice), checked before the run starts. Whether the run's model can honour
 * them is the LLM layer's check, made with the worker's entry for the model.
 */
import type { AgentConfig } from '../contracts/agent-run';
import type { ResolvedModelInfo } from '../contracts/model-info';
import { modelLabel } from '../contracts/model-ref';

export type CallSettings = Pick<
  AgentConfig,
  'kind' | 'maxTokens' | 'temperature' | 'topP' | 'stopSequences' | 'thinkingBudget' | 'responseFormat' | 'toolChoice'
>;

/** The name rule OpenAI applies to a JSON schema's name. */
const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Anthropic's smallest thinking budget; OpenAI's reasoning effort is derived from the same number. */
const MIN_THINKING_BUDGET = 1024;
/** The most stop sequences both wire formats accept. */
const MAX_STOP_SEQUENCES = 4;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function inRange(name: string, value: number | undefined, min: number, max: number, minOpen = false): string[] {
  if (value === undefined) return [];
  const ok =
    typeof value === 'number' && Number.isFinite(value) && (minOpen ? value > min : value >= min) && value <= max;
  return ok ? [] : [`${name} must be a number in ${minOpen ? '(' : '['}${min}, ${max}], got ${String(value)}`];
}

function responseFormatProblems(format: CallSettings['responseFormat']): string[] {
  if (format === undefined || format.type === 'text' || format.type === 'json') return [];
  if (format.type !== 'json_schema') return [`responseFormat.type must be text, json or json_schema`];
  const problems: string[] = [];
  if (!SCHEMA_NAME.test(format.name ?? ''))
    problems.push(`responseFormat.name must match ${SCHEMA_NAME.source}, got "${String(format.name)}"`);
  if (!isObject(format.schema)) problems.push('responseFormat.schema must be a JSON Schema object');
  return problems;
}

function toolChoiceProblems(choice: CallSettings['toolChoice']): string[] {
  if (choice === undefined || choice === 'auto' || choice === 'none' || choice === 'required') return [];
  if (isObject(choice) && choice.type === 'tool' && typeof choice.name === 'string' && choice.name !== '') return [];
  return [`toolChoice must be auto, none, required or { type: 'tool', name }, got ${JSON.stringify(choice)}`];
}

/** Problems with a run's call settings, one readable line each; empty when they are usable. */
export function callSettingProblems(settings: CallSettings): string[] {
  const { maxTokens, stopSequences, thinkingBudget, toolChoice } = settings;
  const problems = [
    ...inRange('temperature', settings.temperature, 0, 2),
    ...inRange('topP', settings.topP, 0, 1, true),
    ...responseFormatProblems(settings.responseFormat),
    ...toolChoiceProblems(toolChoice),
  ];
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0))
    problems.push(`maxTokens (the most output tokens per call) must be a positive integer, got ${String(maxTokens)}`);
  if (
    stopSequences !== undefined &&
    !(
      Array.isArray(stopSequences) &&
      stopSequences.length <= MAX_STOP_SEQUENCES &&
      stopSequences.every((s) => typeof s === 'string' && s !== '')
    )
  )
    problems.push(`stopSequences must be at most ${MAX_STOP_SEQUENCES} non-empty strings`);
  if (thinkingBudget !== undefined && !(Number.isInteger(thinkingBudget) && thinkingBudget >= MIN_THINKING_BUDGET))
    problems.push(
      `thinkingBudget must be a whole number of at least ${MIN_THINKING_BUDGET} tokens, got ${thinkingBudget}`,
    );
  if (thinkingBudget !== undefined && (toolChoice === 'required' || typeof toolChoice === 'object'))
    problems.push('thinkingBudget cannot go with a forced tool choice (required or a named tool): models refuse both');
  if (settings.kind === 'pev') {
    if (settings.responseFormat !== undefined)
      problems.push('responseFormat does not apply to pev runs: each role answers in its own structured format');
    if (toolChoice !== undefined)
      problems.push('toolChoice does not apply to pev runs: each role has its own tool choice');
  }
  return problems;
}

/** The settings a model call carries, without the ones the run left unset. */
export function callSettingsOf(settings: CallSettings): Partial<Omit<CallSettings, 'kind'>> {
  const { maxTokens, temperature, topP, stopSequences, thinkingBudget, responseFormat, toolChoice } = settings;
  const picked = { maxTokens, temperature, topP, stopSequences, thinkingBudget, responseFormat, toolChoice };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined));
}

/**
 * Settings the run's models cannot honour, by what is known of them (the built-in registry on the
 * client; the worker checks again with its own entries before each call).
 */
export function modelSettingProblems(settings: CallSettings, models: readonly ResolvedModelInfo[]): string[] {
  if (!settings.thinkingBudget) return [];
  return models
    .filter((info) => info.known && !info.capabilities.thinking)
    .map((info) => `${modelLabel(info)} does not think: a thinking budget needs a model that thinks`);
}
