/**
 * The model-call settings a run may ask for (output length, sampling, stop sequences, thinking,
 * output format, tool choice), checked before the run starts. Whether the run's models can honour
 * them (and take the tools it asks for) is checked with what is known of each model: by the client
 * before the start, and by the run with its worker's entries before its first model call.
 */
import type { AgentConfig } from '../contracts/run-spec';
import type { CallSettings } from '../contracts/message-model';
import type { ResolvedModelInfo } from '../contracts/model-info';
import { modelLabel } from '../contracts/model-ref';
import { absentOrAll, isPlainObject } from '../common/type-helpers';

/** Every call setting by name: a field of the run's `call` not named here is a misspelt one. */
const CALL_SETTINGS: readonly (keyof CallSettings)[] = [
  'maxTokens',
  'temperature',
  'topP',
  'stopSequences',
  'thinkingBudget',
  'responseFormat',
  'toolChoice',
];

/** The name rule OpenAI applies to a JSON schema's name. */
const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Anthropic's smallest thinking budget; OpenAI's reasoning effort is derived from the same number. */
const MIN_THINKING_BUDGET = 1024;
/** The most stop sequences both wire formats accept. */
const MAX_STOP_SEQUENCES = 4;

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
  if (!isPlainObject(format.schema)) problems.push('responseFormat.schema must be a JSON Schema object');
  return problems;
}

function toolChoiceProblems(choice: CallSettings['toolChoice']): string[] {
  if (choice === undefined || choice === 'auto' || choice === 'none' || choice === 'required') return [];
  if (isPlainObject(choice) && choice.type === 'tool' && typeof choice.name === 'string' && choice.name !== '')
    return [];
  return [`toolChoice must be auto, none, required or { type: 'tool', name }, got ${JSON.stringify(choice)}`];
}

/** Problems with a run's call settings, one readable line each; empty when they are usable. */
export function callSettingProblems(settings: CallSettings): string[] {
  const { maxTokens, stopSequences, thinkingBudget, toolChoice } = settings;
  const problems = [
    ...Object.keys(settings)
      .filter((key) => !CALL_SETTINGS.includes(key as keyof CallSettings))
      .map((key) => `unknown call setting "${key}"`),
    ...inRange('temperature', settings.temperature, 0, 2),
    ...inRange('topP', settings.topP, 0, 1, true),
    ...responseFormatProblems(settings.responseFormat),
    ...toolChoiceProblems(toolChoice),
  ];
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0))
    problems.push(`maxTokens (the most output tokens per call) must be a positive integer, got ${String(maxTokens)}`);
  if (
    !absentOrAll(stopSequences, (s) => typeof s === 'string' && s !== '') ||
    (stopSequences?.length ?? 0) > MAX_STOP_SEQUENCES
  )
    problems.push(`stopSequences must be at most ${MAX_STOP_SEQUENCES} non-empty strings`);
  if (thinkingBudget !== undefined && !(Number.isInteger(thinkingBudget) && thinkingBudget >= MIN_THINKING_BUDGET))
    problems.push(
      `thinkingBudget must be a whole number of at least ${MIN_THINKING_BUDGET} tokens, got ${thinkingBudget}`,
    );
  if (thinkingBudget !== undefined && (settings.temperature !== undefined || settings.topP !== undefined))
    problems.push(
      'thinkingBudget cannot go with temperature or topP: models refuse sampling settings while they think',
    );
  if (thinkingBudget !== undefined && (toolChoice === 'required' || typeof toolChoice === 'object'))
    problems.push('thinkingBudget cannot go with a forced tool choice (required or a named tool): models refuse both');
  return problems;
}

/**
 * Whether a model is one of OpenAI's reasoning models, which take a reasoning effort and refuse
 * sampling settings (temperature, top-p) and stop sequences.
 */
export const isOpenAIReasoningModel = (info: Pick<ResolvedModelInfo, 'provider' | 'capabilities'>): boolean =>
  info.provider === 'openai' && info.capabilities.thinking;

/**
 * Settings the run's models cannot honour, by what is known of them: the client checks with the
 * entries it knows before the run starts (the built-in registry, and the CLI's config file), the run
 * again with its worker's entries before its first model call. Unknown models are not judged.
 */
export function modelSettingProblems(settings: CallSettings, models: readonly ResolvedModelInfo[]): string[] {
  const { thinkingBudget, maxTokens } = settings;
  const problems: string[] = [];
  for (const info of models) {
    if (!info.known) continue;
    const label = modelLabel(info);
    const limit = info.maxOutputTokens;
    if (thinkingBudget && !info.capabilities.thinking)
      problems.push(`${label} does not think: a thinking budget needs a model that thinks`);
    if (maxTokens !== undefined && maxTokens > limit)
      problems.push(`maxTokens ${maxTokens} is over the output limit of ${label} (${limit} tokens)`);
    else if (thinkingBudget && info.capabilities.thinking && (maxTokens ?? 1) + thinkingBudget > limit)
      problems.push(
        `thinkingBudget ${thinkingBudget}${maxTokens ? ` with maxTokens ${maxTokens}` : ''} leaves no room ` +
          `for the answer in the output limit of ${label} (${limit} tokens)`,
      );
    if (isOpenAIReasoningModel(info)) {
      const refused = [
        settings.temperature !== undefined ? 'temperature' : undefined,
        settings.topP !== undefined ? 'topP' : undefined,
        settings.stopSequences?.length ? 'stopSequences' : undefined,
      ].filter((name): name is string => name !== undefined);
      if (refused.length > 0)
        problems.push(`${label} is a reasoning model: it takes no ${refused.join(', ')} (give it a thinkingBudget)`);
    }
  }
  return [...new Set(problems)];
}

/**
 * Whether the tool choice names a tool the run does not have; checked once the run's tools are
 * pinned, before its first model call.
 */
export function missingChoiceTool(choice: CallSettings['toolChoice'], tools: readonly { name: string }[]): string[] {
  if (typeof choice !== 'object' || tools.some((t) => t.name === choice.name)) return [];
  const names =
    tools
      .map((t) => t.name)
      .sort()
      .join(', ') || 'none';
  return [`toolChoice names the tool "${choice.name}", which this run does not have (its tools: ${names})`];
}

/**
 * The tool choice of one model call. A forced choice (`required` or a named tool) holds for the
 * model's first answer to a user message (the task, a follow-up, steering); once it has called
 * tools the model chooses again (`auto`), so a run that forces a tool can still end with an answer.
 */
export function toolChoiceOfCall(choice: CallSettings['toolChoice'], answersUser: boolean): CallSettings['toolChoice'] {
  if (choice === 'required' || typeof choice === 'object') return answersUser ? choice : 'auto';
  return choice;
}

/** What a run asks for by name that only a model taking tools can use. */
function toolsAskedFor({ tools, agents, call }: Pick<AgentConfig, 'tools' | 'agents' | 'call'>): string[] {
  const { allow, mcpServers, mcpConfigPath, mcpConfig, clientTools } = tools;
  return [
    ...(allow?.length ? [`the tools ${allow.join(', ')}`] : []),
    ...(mcpServers?.length || mcpConfigPath || mcpConfig ? ['MCP tools'] : []),
    ...(clientTools?.length ? ['client tools'] : []),
    ...(agents && Object.keys(agents).length ? ['sub-agents'] : []),
    ...(call.toolChoice === 'required' || typeof call.toolChoice === 'object' ? ['a forced tool choice'] : []),
  ];
}

/**
 * Everything the run asks that one of its models cannot give, one line each: settings the model
 * cannot honour, and tools asked for by name on a model whose entry says it takes none (such a model
 * is otherwise called without tools, docs/providers.md).
 */
export function runModelProblems(
  run: Pick<AgentConfig, 'tools' | 'agents' | 'call'>,
  models: readonly ResolvedModelInfo[],
): string[] {
  const asked = toolsAskedFor(run);
  const toolless = asked.length === 0 ? [] : models.filter((info) => info.known && !info.capabilities.tools);
  return [
    ...modelSettingProblems(run.call, models),
    ...toolless.map(
      (info) =>
        `${modelLabel(info)} takes no tools (its entry says capabilities.tools is false), but the run asks for ` +
        `${asked.join(', ')}: leave them out or pick a model that takes tools`,
    ),
  ];
}
