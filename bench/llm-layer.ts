// Overhead of the LLM layer per call, against the local fake provider (so the figures are the
// SDK + adapter + wire cost, not a model's): complete and stream for each adapter, a reply of
// ~2 KiB text plus two tool calls, and how request size grows over a 200-turn tool conversation.
// Prints only: records nothing in bench/results.
// Run: node -r ./scripts/register-ts.js bench/llm-layer.ts [callsPerCase]
import { complete, loadLlmConfig, streamMessage } from '../src/llm';
import { toolCallsOf, type Message } from '../src/contracts/message-model';
import { fakeProviderEnv, reply, startFakeProvider } from '../src/testing/fake-provider';

const CALLS = Number(process.argv[2] ?? 200);
const SPECS = ['anthropic/claude-sonnet-4-6', 'minimax/MiniMax-M2.5', 'openai/gpt-4.1', 'openai-compatible/llama3.1'];
const TOOLS = [
  { name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
];
const STEP = reply.toolCalls(
  [
    { name: 'lookup', arguments: { q: 'first' } },
    { name: 'lookup', arguments: { q: 'second' } },
  ],
  { text: 'x'.repeat(2048) },
);

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function main(): Promise<void> {
  const fake = await startFakeProvider();
  const config = loadLlmConfig({ file: null, env: fakeProviderEnv(fake) });
  fake.respond(() => STEP);
  console.log(`calls per case: ${CALLS}`);
  console.log('spec                              mode      median ms  p95 ms');
  for (const spec of SPECS) {
    for (const [mode, call] of [
      ['complete', complete],
      ['stream', streamMessage],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const started = process.hrtime.bigint();
        await call(
          { model: spec, messages: [{ role: 'user', content: 'go', timestamp: 0 }], options: { tools: TOOLS } },
          { config },
        );
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      times.sort((a, b) => a - b);
      console.log(
        `${spec.padEnd(34)}${mode.padEnd(10)}${percentile(times, 0.5).toFixed(2).padStart(9)}${percentile(times, 0.95).toFixed(2).padStart(8)}`,
      );
    }
  }

  fake.reset();
  fake.respond(() => reply.toolCalls([{ name: 'lookup', arguments: { q: 'more' } }], { text: 'r'.repeat(1024) }));
  const messages: Message[] = [{ role: 'user', content: 'start', timestamp: 0 }];
  for (let turn = 0; turn < 200; turn++) {
    const message = await complete(
      { model: 'anthropic/claude-sonnet-4-6', messages, options: { tools: TOOLS } },
      { config },
    );
    messages.push(message);
    for (const c of toolCallsOf(message)) {
      messages.push({
        role: 'tool_result',
        toolCallId: c.id,
        toolName: c.name,
        content: [{ type: 'text', text: 't'.repeat(4096) }],
        isError: false,
        timestamp: 0,
      });
    }
  }
  const sizes = fake.requests.map((r) => JSON.stringify(r.body).length);
  console.log(
    `200-turn conversation: request body ${sizes[0]} B at turn 1, ${sizes[99]} B at turn 100, ${sizes[199]} B at turn 200`,
  );
  await fake.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
