/**
 * Provider configuration: the SDKs' environment conventions plus an optional JSON file with
 * named providers, base URLs and model entries. Built once by the worker from the environment it
 * is given and handed to every call; API keys stay on the worker and are never part of a request
 * that crosses into workflow history.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { configFileSchema, type LlmConfigFile } from './llm-config-file';
import type { ModelInfo } from '../contracts/model-info';
import { authenticationFailure, configFailure } from './failures';
import { declarationProblems } from '../policy/sub-agents';
import { didYouMean } from '../common/did-you-mean';
import type { SubAgentSpec } from '../contracts/sub-agents';
import { parseJson } from '../common/json-text';

/** Wire format a provider speaks. */
export type ProviderApi = 'anthropic' | 'openai';

export interface ProviderConfig {
  id: string;
  api: ProviderApi;
  /** Base URL as the SDK expects it (`openai-compatible` and new providers have no default). */
  baseUrl?: string;
  /** Environment variable holding the API key. */
  apiKeyEnv: string;
  /** The key that variable held when the config was built. */
  apiKey?: string;
  /** When false (local servers), a missing key is sent as a placeholder instead of failing. */
  apiKeyRequired: boolean;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
}

/** A provider's or model's limits, enforced for every worker by its own task queue (`policy/llm-queues.ts`). */
export interface CallLimits {
  /** Model calls started per minute, across the fleet (the queue's server-side rate limit). */
  requestsPerMinute: number;
  /** Model calls one worker runs at once. */
  concurrency?: number;
}

export interface LlmConfig {
  providers: Record<string, ProviderConfig>;
  /** Limits by `provider` or `provider/model`; a model's own wins over its provider's. */
  limits: Record<string, CallLimits>;
  /** Model entries from the config file (capabilities and prices for models the registry lacks). */
  models: ModelInfo[];
  /** Longest a call may take in all (runaway answers). */
  timeoutMs: number;
  /** Longest a call may go without a byte from the provider, unless its model entry says otherwise. */
  idleTimeoutMs: number;
  /** Path of the config file that was read, if any. */
  source?: string;
  /** The file's sub-agents (`agents`), for the runs the CLI starts; the worker does not read them. */
  agents?: Record<string, unknown>;
}

const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
export const CONFIG_PATH_ENV = 'DURABLE_AGENTS_CONFIG';
const DEFAULT_CONFIG_FILE = 'durable-agents.json';

export { CONCURRENCY, REQUESTS_PER_MINUTE, type LlmConfigFile } from './llm-config-file';

type Env = Record<string, string | undefined>;

/** A provider's environment variable: `<ID>_API_KEY`, `<ID>_BASE_URL` (`openai-compatible` → `OPENAI_COMPATIBLE_…`). */
const envName = (id: string, what: 'API_KEY' | 'BASE_URL'): string =>
  `${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${what}`;

/** The built-in providers; `<ID>_BASE_URL` replaces the default base URL. */
const BUILTIN_PROVIDERS: Record<string, Pick<ProviderConfig, 'api' | 'baseUrl' | 'apiKeyRequired'>> = {
  // Defaults are explicit so the SDKs never fall back to the environment behind a config's back.
  anthropic: { api: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKeyRequired: true },
  minimax: { api: 'anthropic', baseUrl: 'https://api.minimax.io/anthropic', apiKeyRequired: true },
  openai: { api: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyRequired: true },
  'openai-compatible': { api: 'openai', baseUrl: undefined, apiKeyRequired: false },
};

function builtinProviders(env: Env): Record<string, ProviderConfig> {
  return Object.fromEntries(
    Object.entries(BUILTIN_PROVIDERS).map(([id, { api, baseUrl, apiKeyRequired }]) => [
      id,
      { id, api, baseUrl: env[envName(id, 'BASE_URL')] || baseUrl, apiKeyEnv: envName(id, 'API_KEY'), apiKeyRequired },
    ]),
  );
}

export interface LoadLlmConfigOptions {
  /** Where base URLs, keys and the config file's path are read from (the worker passes its environment). */
  env: Env;
  /**
   * Config file path; `null` reads no file. Defaults to `$DURABLE_AGENTS_CONFIG`, else `./durable-agents.json` if
   * present.
   */
  file?: string | null;
  /** Config given inline instead of (or on top of) a file. */
  inline?: LlmConfigFile;
  /** The file's and the inline config's contents, read already (`configParts`): read nothing again. */
  parts?: ConfigPart[];
}

/** One source of config: a file's contents, or the inline config. */
export interface ConfigPart {
  source: string;
  raw: unknown;
}

/**
 * Builds the provider configuration from the environment and the config file. A named provider
 * in the file overrides a built-in one of the same name field by field. Throws a non-retryable
 * `LlmConfigError` failure naming the file and the offending field.
 */
export function loadLlmConfig(options: LoadLlmConfigOptions): LlmConfig {
  const { env } = options;
  const parts = options.parts ?? configParts(options);
  const path = parts.find((p) => p.source !== INLINE_SOURCE)?.source;

  const providers = builtinProviders(env);
  const models: ModelInfo[] = [];
  const limits: Record<string, CallLimits> = {};
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  let idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  let agents: Record<string, unknown> | undefined;
  for (const { source, raw } of parts) {
    const invalid = (problem: string) => configFailure(`Invalid LLM config in ${source}: ${problem}`);
    const parsed = configFileSchema.safeParse(raw);
    if (!parsed.success) {
      throw configFailure(`Invalid LLM config in ${source}:\n${z.prettifyError(parsed.error)}`);
    }
    for (const [id, entry] of Object.entries(parsed.data.providers)) {
      const base = providers[id];
      const api = entry.api ?? base?.api;
      if (!api) {
        const builtIn = didYouMean(id, Object.keys(BUILTIN_PROVIDERS));
        throw invalid(`provider "${id}" needs "api": "anthropic" or "openai"${builtIn}.`);
      }
      providers[id] = {
        id,
        api,
        baseUrl: entry.baseUrl ?? base?.baseUrl,
        apiKeyEnv: entry.apiKeyEnv ?? base?.apiKeyEnv ?? envName(id, 'API_KEY'),
        apiKeyRequired: entry.apiKeyRequired ?? base?.apiKeyRequired ?? true,
        headers: entry.headers ?? base?.headers,
      };
      if (entry.limits) limits[id] = entry.limits;
    }
    for (const { limits: modelLimits, ...model } of parsed.data.models) {
      models.push(model);
      if (!modelLimits) continue;
      if (!providers[model.provider])
        throw invalid(`limits for "${model.provider}/${model.model}" name an unknown provider.`);
      limits[`${model.provider}/${model.model}`] = modelLimits;
    }
    timeoutMs = parsed.data.timeoutMs ?? timeoutMs;
    idleTimeoutMs = parsed.data.idleTimeoutMs ?? idleTimeoutMs;
    agents = parsed.data.agents ?? agents;
    const problems = Object.entries(parsed.data.agents ?? {}).flatMap(([name, spec]) =>
      declarationProblems(name, spec as SubAgentSpec),
    );
    if (problems.length > 0) throw invalid(problems.join('; '));
  }
  for (const provider of Object.values(providers)) {
    const key = env[provider.apiKeyEnv];
    if (key) provider.apiKey = key;
  }
  return { providers, limits, models, timeoutMs, idleTimeoutMs, source: path, ...(agents ? { agents } : {}) };
}

/** The config as read, in layers: the file (when there is one), then the inline config on top. */
export function configParts(options: LoadLlmConfigOptions): ConfigPart[] {
  const path = resolveConfigPath(options.file, options.env);
  return [
    ...(path ? [{ source: path, raw: readConfigFile(path) }] : []),
    ...(options.inline ? [{ source: INLINE_SOURCE, raw: options.inline as unknown }] : []),
  ];
}

const INLINE_SOURCE = 'inline config';

/** The config file a worker in this environment reads, or would read once it exists. */
export function configFileFor(env: Env): string {
  return resolve(env[CONFIG_PATH_ENV] || DEFAULT_CONFIG_FILE);
}

/** The config file in use: `file`, else `$DURABLE_AGENTS_CONFIG`, else `./durable-agents.json` if present. */
function resolveConfigPath(file: string | null | undefined, env: Env): string | undefined {
  if (file === null) return undefined;
  if (file !== undefined) return resolve(file);
  const path = configFileFor(env);
  return env[CONFIG_PATH_ENV] || existsSync(path) ? path : undefined;
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw configFailure(
      `Cannot read LLM config file ${path} (set ${CONFIG_PATH_ENV} to another path): ${(err as Error).message}`,
    );
  }
  try {
    return parseJson(text);
  } catch (err) {
    throw configFailure(`LLM config file ${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Placeholder sent to keyless local servers; the SDKs refuse to run without some key. */
const NO_KEY = 'no-key';

/**
 * The provider's API key. A missing required key is a non-retryable `LlmAuthentication` failure
 * that names the variable to set.
 */
export function readApiKey(provider: ProviderConfig): string {
  if (provider.apiKey) return provider.apiKey;
  if (!provider.apiKeyRequired) return NO_KEY;
  throw authenticationFailure(
    `No API key for provider "${provider.id}": set the ${provider.apiKeyEnv} environment variable on the worker.`,
  );
}

/**
 * The credentials a worker with this config and environment holds: the providers' keys and extra
 * header values, and every `*_API_KEY` variable (Temporal Cloud, web search, …).
 */
export function credentialsOf(config: LlmConfig, env: Env): string[] {
  const values = Object.values(config.providers).flatMap((provider) => [
    ...(provider.apiKey ? [provider.apiKey] : []),
    ...Object.values(provider.headers ?? {}),
  ]);
  for (const [name, value] of Object.entries(env)) if (name.endsWith('_API_KEY') && value) values.push(value);
  return values;
}
