/**
 * The one parser of model spec strings and the one check that a model's provider is known. Pure:
 * the client and the CLI use both before a run starts, the workflow reads recorded configs with
 * them, and the worker's LLM layer checks every call with the same functions.
 */
import type { AgentConfig } from '../contracts/run-spec';
import { modelLabel, type ModelName, type ModelRef } from '../contracts/model-ref';

const EXAMPLES =
  'e.g. anthropic/claude-sonnet-4-6, openai/gpt-5-mini, minimax/MiniMax-M2.5 or openai-compatible/llama3.1';

const hasSpace = (text: string): boolean => /\s/.test(text);

/** `provider/model`, split at the first slash (model ids may hold more); undefined when it is not one. */
function split(spec: string): ModelRef | undefined {
  const trimmed = spec.trim();
  const slash = trimmed.indexOf('/');
  if (slash <= 0 || slash === trimmed.length - 1 || hasSpace(trimmed)) return undefined;
  return { provider: trimmed.slice(0, slash), model: trimmed.slice(slash + 1) };
}

function isModelRef(value: unknown): value is ModelRef {
  if (typeof value !== 'object' || value === null) return false;
  const { provider, model } = value as Record<string, unknown>;
  return (
    typeof provider === 'string' &&
    provider !== '' &&
    !provider.includes('/') &&
    !hasSpace(provider) &&
    typeof model === 'string' &&
    model !== '' &&
    !hasSpace(model)
  );
}

/** Why `value` names no model (one line with an example), or undefined when it names one. */
export function modelNameProblem(value: unknown): string | undefined {
  if (typeof value === 'string')
    return split(value) ? undefined : `"${value}" is not a model spec: expected provider/model, ${EXAMPLES}`;
  if (isModelRef(value)) return undefined;
  const shown = JSON.stringify(value) ?? String(value);
  return `${shown} is not a model: expected a provider/model spec or {provider, model}`;
}

/** Parses a `provider/model` spec string. Throws an Error with an example of the format. */
export function parseModelRef(spec: string): ModelRef {
  const ref = typeof spec === 'string' ? split(spec) : undefined;
  if (!ref) throw new Error(modelNameProblem(spec));
  return ref;
}

/** A model name as a {@link ModelRef}: a spec string is parsed, a ref is checked and copied. Throws on bad input. */
export function modelRefOf(value: ModelName): ModelRef {
  if (typeof value === 'string') return parseModelRef(value);
  const problem = modelNameProblem(value);
  if (problem) throw new Error(problem);
  return { provider: value.provider, model: value.model };
}

export const sameModel = (a: ModelRef | undefined, b: ModelRef | undefined): boolean =>
  a !== undefined && b !== undefined && a.provider === b.provider && a.model === b.model;

/**
 * Why a worker whose providers are `providers` (the built-in ones and those of its config file)
 * cannot call `ref`, or undefined when it can.
 */
export function unknownProviderProblem(ref: ModelRef, providers: readonly string[]): string | undefined {
  if (providers.includes(ref.provider)) return undefined;
  return (
    `Unknown provider "${ref.provider}" in model spec "${modelLabel(ref)}". Known providers: ` +
    `${[...providers].sort().join(', ')}. Declare others under "providers" in the config file.`
  );
}

/** Every model a run may call, each once: its chain, budget and summary models, and `roles` (a pev run's). */
export function runModels(config: AgentConfig, roles: readonly ModelRef[]): ModelRef[] {
  const { model, context } = config;
  const all = [
    model.primary,
    ...model.fallbacks,
    ...(model.budget ?? []).map((rule) => rule.model),
    ...(context.summaryModel ? [context.summaryModel] : []),
    ...roles,
  ];
  return all.filter((ref, i) => all.findIndex((other) => sameModel(other, ref)) === i);
}
