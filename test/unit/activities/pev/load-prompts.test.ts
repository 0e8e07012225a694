import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { loadPevPrompts } from '../../../../src/activities/pev/load-prompts';
import { AGENT_FAILURE } from '../../../../src/contracts/failure-types';
import { systemPromptOf } from '../../../../src/policy/pev/prompt-template';
import { preparePevPromptsActivity } from '../../../../src/activities/pev/prepare-prompts';
import type { StoredCallPrompt } from '../../../../src/contracts/agent-activities';
import { FileContentStore } from '../../../../src/store';
import { REPO_ROOT } from '../../../kit/env';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pev-prompts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function expectPromptsError(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  expect(err).toMatchObject({ type: AGENT_FAILURE.pevPrompts, nonRetryable: true });
  expect((err as Error).message).toMatch(message);
}

test('without a directory the shipped core templates load, each with the placeholder', async () => {
  const prompts = await loadPevPrompts();
  expect(Object.keys(prompts.templates)).toEqual(['planner', 'executor', 'verifier']);
  expect(prompts.businessContext).toEqual({});
  expect(systemPromptOf(prompts, 'verifier')).toContain('"component": "verifier-response"');
  expect(systemPromptOf(prompts, 'planner')).toContain('No business context is configured');
});

test('business context per role comes from <dir>/<role>.md and core overrides from <dir>/core/', async () => {
  await writeFile(path.join(dir, 'planner.md'), '# Billing desk\nInvoices are monthly.');
  await mkdir(path.join(dir, 'core'));
  await writeFile(path.join(dir, 'core', 'verifier.md'), 'Strict verifier.\n{{businessContext}}');
  const prompts = await loadPevPrompts({ promptsDir: dir });
  expect(systemPromptOf(prompts, 'planner')).toContain('# Billing desk\nInvoices are monthly.');
  expect(systemPromptOf(prompts, 'executor')).toContain('# Executor');
  expect(systemPromptOf(prompts, 'verifier')).toBe(
    'Strict verifier.\n(No business context is configured for this application.)',
  );
});

test('the shipped example business context loads', async () => {
  const prompts = await loadPevPrompts({
    promptsDir: path.join(REPO_ROOT, 'prompts/examples/workspace-assistant'),
  });
  expect(systemPromptOf(prompts, 'executor')).toContain('Workspace assistant: execution');
});

test('a new role loads from its own core template', async () => {
  await mkdir(path.join(dir, 'core'));
  await writeFile(path.join(dir, 'core', 'reviewer.md'), 'Reviewer {{businessContext}}');
  await writeFile(path.join(dir, 'reviewer.md'), 'Code style: strict.');
  const prompts = await loadPevPrompts({ promptsDir: dir, roles: ['planner', 'reviewer'] });
  expect(systemPromptOf(prompts, 'reviewer')).toBe('Reviewer Code style: strict.');
});

test('an override without the placeholder is refused with the file named', async () => {
  await mkdir(path.join(dir, 'core'));
  await writeFile(path.join(dir, 'core', 'planner.md'), 'Plan things.');
  await expectPromptsError(
    loadPevPrompts({ promptsDir: dir }),
    /core\/planner\.md\) lacks the \{\{businessContext\}\} placeholder/,
  );
});

test('a missing directory and a role without any template are actionable errors', async () => {
  await expectPromptsError(loadPevPrompts({ promptsDir: path.join(dir, 'nope') }), /does not exist/);
  await expectPromptsError(
    loadPevPrompts({ promptsDir: dir, roles: ['auditor'] }),
    /No core template for role "auditor": add .*core\/auditor\.md/,
  );
});

describe('prepared prompts', () => {
  test('each role prompt is stored once with its response format; model calls name it by hash', async () => {
    const store = new FileContentStore(dir);
    const prepare = preparePevPromptsActivity(store);
    const prepared = await prepare({
      promptsDir: path.join(REPO_ROOT, 'prompts/examples/workspace-assistant'),
      structuredOutput: true,
    });
    expect(Object.keys(prepared.roles)).toEqual(['planner', 'executor', 'verifier']);
    const planner = await store.get<StoredCallPrompt>(prepared.roles.planner!.promptHash);
    expect(planner.systemPrompt).toContain('Workspace assistant: planning');
    expect(planner.systemPrompt!.length).toBe(prepared.roles.planner!.systemPromptChars);
    expect(planner.responseFormat).toMatchObject({
      type: 'json_schema',
      name: 'planner-response',
      schema: { required: expect.arrayContaining(['todos']) },
    });
    const again = await prepare({
      promptsDir: path.join(REPO_ROOT, 'prompts/examples/workspace-assistant'),
      structuredOutput: true,
    });
    expect(again).toEqual(prepared);
    const plain = await prepare({ structuredOutput: false });
    expect(await store.get<StoredCallPrompt>(plain.roles.verifier!.promptHash)).toEqual({
      systemPrompt: expect.stringContaining('# Verifier'),
    });
  });
});
