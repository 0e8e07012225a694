import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { complete, loadLlmConfig, providerOf } from '../../../src/llm';
import { LLM_FAILURE } from '../../../src/contracts/failure-types';
import { parseModelRef } from '../../../src/policy/model-ref';
import { reply, startFakeProvider } from '../../../src/testing/fake-provider';
import { user } from './support';

const bare = loadLlmConfig({ file: null, env: {} });

function failureOf(run: () => unknown): ApplicationFailure {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }
  throw new Error('expected a failure');
}

function writeConfig(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'llm-config-'));
  const file = join(dir, 'durable-agents.json');
  writeFileSync(file, content);
  return file;
}

describe('model refs', () => {
  it.each([
    ['anthropic/claude-sonnet-4-6', { provider: 'anthropic', model: 'claude-sonnet-4-6' }, 'anthropic'],
    ['minimax/MiniMax-M2.5', { provider: 'minimax', model: 'MiniMax-M2.5' }, 'anthropic'],
    ['openai/gpt-5-mini', { provider: 'openai', model: 'gpt-5-mini' }, 'openai'],
    [
      'openai-compatible/meta-llama/Llama-3.1-8B',
      { provider: 'openai-compatible', model: 'meta-llama/Llama-3.1-8B' },
      'openai',
    ],
    ['  openai/gpt-4.1  ', { provider: 'openai', model: 'gpt-4.1' }, 'openai'],
  ])('parses %j once, and the worker resolves the ref to its provider', (spec, expected, api) => {
    const ref = parseModelRef(spec);
    expect(ref).toEqual(expected);
    expect(providerOf(ref, bare)).toMatchObject({ ref: expected, provider: { id: expected.provider, api } });
  });

  it.each(['', 'claude-sonnet-4-6', '/gpt-4.1', 'openai/', 'openai/gpt 4'])(
    'refuses %j with an example of the format',
    (spec) => {
      expect(() => parseModelRef(spec)).toThrow('is not a model spec: expected provider/model, e.g.');
      const failure = failureOf(() => providerOf(spec, bare));
      expect(failure).toMatchObject({ type: LLM_FAILURE.config, nonRetryable: true });
      expect(failure.message).toContain('expected provider/model');
    },
  );

  it('names the known providers when the provider is unknown', () => {
    const failure = failureOf(() => providerOf({ provider: 'ollama', model: 'llama3' }, bare));
    expect(failure.message).toContain('Unknown provider "ollama"');
    expect(failure.message).toContain('anthropic, minimax, openai, openai-compatible');
  });

  it('says a provider declared after the worker read its config file needs a restart, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-config-'));
    const file = join(dir, 'durable-agents.json');
    writeFileSync(file, JSON.stringify({ providers: {} }));
    const loaded = loadLlmConfig({ file, env: {} });
    writeFileSync(file, JSON.stringify({ providers: { ollama: { api: 'openai', baseUrl: 'http://o.test/v1' } } }));
    const failure = failureOf(() => providerOf({ provider: 'ollama', model: 'llama3' }, loaded));
    expect(failure.message).toContain(
      `This worker read its config from ${file} when it started: restart it to use providers declared since.`,
    );
    expect(failure.message).not.toContain('[object Object]');
  });
});

describe('loadLlmConfig', () => {
  it('takes base URLs from the SDK environment conventions', () => {
    const config = loadLlmConfig({
      file: null,
      env: {
        ANTHROPIC_BASE_URL: 'http://a.test',
        OPENAI_BASE_URL: 'http://o.test/v1',
        MINIMAX_BASE_URL: 'http://m.test/anthropic',
      },
    });
    expect(config.providers.anthropic.baseUrl).toBe('http://a.test');
    expect(config.providers.openai.baseUrl).toBe('http://o.test/v1');
    expect(config.providers.minimax.baseUrl).toBe('http://m.test/anthropic');
    expect(loadLlmConfig({ file: null, env: {} }).providers.minimax.baseUrl).toBe('https://api.minimax.io/anthropic');
  });

  it('reads named providers and models from the file named by DURABLE_AGENTS_CONFIG', async () => {
    const fake = await startFakeProvider({ apiKey: 'local-secret' });
    try {
      const file = writeConfig(
        JSON.stringify({
          providers: { ollama: { api: 'openai', baseUrl: fake.openaiBaseUrl('/ollama'), apiKeyEnv: 'OLLAMA_KEY' } },
          models: [
            {
              provider: 'ollama',
              model: 'qwen3',
              contextWindow: 40960,
              maxOutputTokens: 8192,
              capabilities: { thinking: true },
            },
          ],
        }),
      );
      const config = loadLlmConfig({ env: { DURABLE_AGENTS_CONFIG: file, OLLAMA_KEY: 'local-secret' } });
      expect(config.source).toBe(file);
      expect(providerOf('ollama/qwen3', config).provider).toMatchObject({ id: 'ollama', api: 'openai' });
      fake.script(reply.text('hi from ollama'));
      const message = await complete({ model: 'ollama/qwen3', messages: [user('hi')] }, { config });
      expect(message).toMatchObject({
        provider: 'ollama',
        model: 'qwen3',
        content: [{ type: 'text', text: 'hi from ollama' }],
      });
      expect(fake.requests[0].path).toBe('/ollama/v1/chat/completions');
      // The key comes from the environment the worker was given, never from the config file.
      const keyless = loadLlmConfig({ env: { DURABLE_AGENTS_CONFIG: file } });
      const noKey = await complete({ model: 'ollama/qwen3', messages: [user('hi')] }, { config: keyless }).catch(
        (e: unknown) => e,
      );
      expect(noKey).toMatchObject({ type: LLM_FAILURE.authentication, message: expect.stringContaining('OLLAMA_KEY') });
    } finally {
      await fake.close();
    }
  });

  it.each([
    ['not JSON', '{ providers: ', /not valid JSON/],
    ['an unknown field', JSON.stringify({ provider: {} }), /Unrecognized key.*provider/],
    [
      'a bad base URL',
      JSON.stringify({ providers: { x: { api: 'openai', baseUrl: 'not a url' } } }),
      /providers\.x\.baseUrl/,
    ],
    [
      'a new provider without api',
      JSON.stringify({ providers: { x: { baseUrl: 'http://x.test' } } }),
      /provider "x" needs "api"/,
    ],
    [
      'a misspelt built-in provider',
      JSON.stringify({ providers: { anthropc: { baseUrl: 'http://x.test' } } }),
      /provider "anthropc" needs "api": "anthropic" or "openai" \(did you mean "anthropic"\?\)\.$/,
    ],
    [
      'a sub-agent without a description (the CLI and the worker read it alike)',
      JSON.stringify({ agents: { editor: { tools: ['fs_write'] } } }),
      /: sub-agent "editor": a description is required: the model reads it to decide when to delegate$/,
    ],
    [
      'a model without its context window',
      JSON.stringify({ models: [{ provider: 'x', model: 'm', maxOutputTokens: 1 }] }),
      /models\[0\]\.contextWindow/,
    ],
  ])('refuses a config file with %s, naming the file', (_name, content, message) => {
    const file = writeConfig(content);
    const failure = failureOf(() => loadLlmConfig({ file, env: {} }));
    expect(failure).toMatchObject({ type: LLM_FAILURE.config, nonRetryable: true });
    expect(failure.message).toContain(file);
    expect(failure.message).toMatch(message);
  });

  it('names the variable when the config file it points at is missing', () => {
    const failure = failureOf(() =>
      loadLlmConfig({ env: { DURABLE_AGENTS_CONFIG: '/nonexistent/durable-agents.json' } }),
    );
    expect(failure.message).toContain('DURABLE_AGENTS_CONFIG');
  });
});
