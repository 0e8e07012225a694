/**
 * Changing one provider's or model's `limits` in a config file's JSON: the edit `durable-agents
 * limits set` writes. The result is checked as a worker would read it before anything is written.
 */
import { oneLine } from '../common/error-text';
import { lookupModel } from '../policy/model-registry';
import type { ModelInfo } from '../contracts/model-info';
import { rangeProblem } from '../common/decimal';
import { CONCURRENCY, REQUESTS_PER_MINUTE, loadLlmConfig, type CallLimits, type LlmConfigFile } from './llm-config';

type Env = Record<string, string | undefined>;

/** A `provider` or `provider/model` limit key as its parts. */
function parseLimitKey(key: string): { provider: string; model?: string } {
  const slash = key.indexOf('/');
  if (slash < 0) return { provider: key };
  return { provider: key.slice(0, slash), model: key.slice(slash + 1) };
}

/** A problem with limits given on the command line, or undefined. */
function limitsProblem(limits: CallLimits): string | undefined {
  const rate = rangeProblem(limits.requestsPerMinute, REQUESTS_PER_MINUTE);
  if (rate) return `requests a minute ${rate}`;
  const concurrency = limits.concurrency === undefined ? undefined : rangeProblem(limits.concurrency, CONCURRENCY);
  return concurrency && `concurrency ${concurrency}`;
}

/**
 * `raw` (a config file's JSON, or `{}` for none) with `limits` set for `key`. A model without an
 * entry gets one from the built-in registry. Throws one line for an unknown provider or model, or
 * a file a worker would refuse.
 */
export function withLimits(raw: unknown, key: string, limits: CallLimits, env: Env): LlmConfigFile {
  const problem = limitsProblem(limits);
  if (problem) throw new Error(`${key}: ${problem}.`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error('the config file does not hold a JSON object.');
  const file = structuredClone(raw) as LlmConfigFile & Record<string, unknown>;
  const providers = withOneLineError(() => loadLlmConfig({ env, file: null, inline: file })).providers;
  const { provider, model } = parseLimitKey(key);
  if (!providers[provider])
    throw new Error(`unknown provider "${provider}" (known: ${Object.keys(providers).sort().join(', ')}).`);
  const entry = { ...(limits.concurrency === undefined ? { requestsPerMinute: limits.requestsPerMinute } : limits) };
  if (model === '') throw new Error(`"${key}" names no model after the "/".`);
  if (model === undefined) {
    file.providers = {
      ...(file.providers ?? {}),
      [provider]: { ...(file.providers?.[provider] ?? {}), limits: entry },
    };
  } else {
    const models = [...(file.models ?? [])];
    const at = models.findIndex((m) => m.provider === provider && m.model === model);
    if (at >= 0) models[at] = { ...models[at], limits: entry };
    else models.push({ ...registryEntry(provider, model), limits: entry });
    file.models = models;
  }
  withOneLineError(() => loadLlmConfig({ env, file: null, inline: file }));
  return file;
}

function registryEntry(provider: string, model: string): Omit<ModelInfo, 'idleTimeoutMs'> {
  const info = lookupModel({ provider, model });
  if (!info.known)
    throw new Error(
      `unknown model "${provider}/${model}": add its entry (contextWindow, maxOutputTokens) to "models" ` +
        'in the config file first.',
    );
  const { known: _known, ...rest } = info;
  return rest;
}

/** Runs `fn`, turning a config failure's message into one line. */
function withOneLineError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const message = oneLine((err as Error).message);
    throw new Error(message.replace(/^Invalid LLM config in inline config:? ?/, ''), { cause: err });
  }
}
