import fs from 'node:fs';
import path from 'node:path';
import type { LlmConfigFile } from '../llm';
import { reply, startFakeProvider, type RecordedRequest } from '../testing/fake-provider';
import { modelByKey } from './key-model';

/** The model the demo runs on, and what to tell the user about it. */
export interface DemoModel {
  model: string;
  /** LLM config the demo's worker adds to its own (the scripted model's provider). */
  llmConfig?: LlmConfigFile;
  /** One line saying which model answers and why. */
  note: string;
  close(): Promise<void>;
}

const NOTES = `# Launch checklist
- [x] Write the design notes
- [ ] Record the replay histories
- [x] Register the search attributes
- [ ] Ship the docker-compose stack
`;

/** The demo's task and tools, and its workspace: a notes file under `<cwd>/.durable-agents/demo-workspace`. */
export function prepareDemoTask(cwd: string) {
  const workspaceRoot = path.join(cwd, '.durable-agents', 'demo-workspace');
  fs.mkdirSync(workspaceRoot, { recursive: true });
  const notes = path.join(workspaceRoot, 'notes.md');
  if (!fs.existsSync(notes)) fs.writeFileSync(notes, NOTES);
  return {
    task: 'Look in the workspace, read the checklist, and tell me in one sentence which items are still open.',
    workspaceRoot,
    tools: ['fs_list', 'fs_read'],
  };
}

/**
 * A provider with a key in the environment when there is one (`--model` picks the model);
 * otherwise the built-in scripted model: the fake provider from src/testing, started in-process
 * and scripted to list the workspace, read the notes and answer from what it read.
 */
export async function chooseDemoModel(env: NodeJS.ProcessEnv, requested?: string): Promise<DemoModel> {
  const noop = async () => undefined;
  if (requested) return { model: requested, note: `Model: ${requested} (from --model)`, close: noop };
  const byKey = modelByKey(env);
  if (byKey) return { model: byKey.model, note: `Model: ${byKey.model} (${byKey.key} is set)`, close: noop };
  const fake = await startFakeProvider();
  fake.respond(scriptedAgent);
  return {
    model: 'anthropic/claude-sonnet-4-6',
    // The demo's worker sends the Anthropic provider to the fake, which takes any key.
    llmConfig: { providers: { anthropic: { baseUrl: fake.anthropicBaseUrl(), apiKeyRequired: false } } },
    note:
      'Model: the built-in scripted model, not a real LLM: no ANTHROPIC_API_KEY or OPENAI_API_KEY is set, so ' +
      'a local fake Anthropic API answers from a fixed script (set a key to use a real provider).',
    close: () => fake.close(),
  };
}

type Block = { type?: string; content?: unknown; text?: string };

/** Lists the workspace, reads notes.md, then answers from the tool result it got back. */
function scriptedAgent(request: RecordedRequest) {
  const messages = (request.body.messages ?? []) as { role: string; content: string | Block[] }[];
  const results = messages.flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : [],
  );
  if (results.length === 0)
    return reply.toolCalls([{ name: 'fs_list', arguments: { path: '.' } }], {
      text: 'I will look at the workspace first.',
    });
  if (results.length === 1) return reply.toolCalls([{ name: 'fs_read', arguments: { path: 'notes.md' } }]);
  const notes = toolResultText(results[results.length - 1]);
  const open = notes
    .split('\n')
    .filter((line) => line.trim().startsWith('- [ ]'))
    .map((line) => line.replace(/^\s*- \[ \]\s*/, '').trim());
  return reply.text(open.length ? `Still open: ${open.join('; ')}.` : 'Every item on the checklist is done.');
}

function toolResultText(block: Block): string {
  if (typeof block.content === 'string') return block.content;
  if (Array.isArray(block.content)) return (block.content as Block[]).map((b) => b.text ?? '').join('\n');
  return '';
}
