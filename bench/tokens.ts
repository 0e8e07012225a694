// Billed input tokens and input cost with prompt caching, old tool results masked against the
// unmasked context in the same run: a scripted job of N turns (default 30) that reads a 10 KB file
// each turn, then answers from the last result it sees, run twice on a dev server (masking on by
// default, then `masking: false`). The fake provider bills a token per 4 characters of each request
// and caches prompts at the Anthropic adapter's breakpoints; the cost prices uncached input, cache
// reads and cache writes at the model's registry prices. Both runs must give the same answer.
// Run: node -r ./scripts/register-ts.js bench/tokens.ts [turns] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient, type StartAgentOptions } from '../src/client';
import { reply, startFakeProvider, type RecordedRequest } from '../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../src/tools';
import { lookupModel } from '../src/policy/model-registry';
import { parseModelRef } from '../src/policy/model-ref';
import { agentWorker, benchArgs, figure, runBench, startBenchServer, writeBenchResult } from './kit';

const args = benchArgs();
const TURNS = args.sizes[0] ?? (args.smoke ? 8 : 30);
const FILE_BYTES = 10 * 1024;
const MODEL = 'anthropic/claude-sonnet-4-6';

type Block = { type?: string; content?: unknown };

/** Tool results in the request, oldest first, as text. */
function toolResults(request: RecordedRequest): string[] {
  const messages = (request.body.messages ?? []) as { content: string | Block[] }[];
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content.filter((b) => b.type === 'tool_result').map((b) => JSON.stringify(b.content ?? ''))
      : [],
  );
}

/** Reads the file until it has read it TURNS times, then answers with the last line it was given. */
function responder(request: RecordedRequest) {
  const results = toolResults(request);
  if (results.length < TURNS)
    return reply.toolCalls([{ name: 'read_report', arguments: { part: results.length + 1 } }]);
  const last = /checksum [0-9a-f]+ part \d+/.exec(results.at(-1) ?? '')?.[0] ?? 'no checksum seen';
  return reply.text(`The report ends with: ${last}.`);
}

async function main(): Promise<boolean> {
  const server = await startBenchServer(args);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tokens-'));
  const file = path.join(dir, 'report.txt');
  const registry = new ToolRegistry();
  const fake = await startFakeProvider();
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    fake.respond(responder);
    const line = 'The quarterly figures held steady across every region we measured. ';
    fs.writeFileSync(file, line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES - 40));
    registry.register(
      defineTool({
        name: 'read_report',
        description: 'Reads one part of the report file.',
        parameters: z.object({ part: z.number() }),
        timeoutMs: 5_000,
        execute: ({ part }) =>
          `${fs.readFileSync(file, 'utf8')}\nchecksum ${(part * 2654435761).toString(16)} part ${part}`,
      }),
    );
    const parts = await agentWorker(fake, registry, dir);
    const client = new Client({ connection });
    const taskQueue = 'bench-tokens';
    const worker = await Worker.create({ connection, taskQueue, plugins: [parts.plugin()] });
    const agents = new AgentClient(client, taskQueue);
    const run = async (extra: Partial<StartAgentOptions>) => {
      const id = await agents.start({
        task: 'Read the report part by part and tell me how it ends.',
        model: MODEL,
        limits: { maxTurns: TURNS + 2 },
        ...extra,
      });
      const result = await agents.result(id);
      if (result.stopReason !== 'completed') throw new Error(`the run ended ${result.stopReason}`);
      return result;
    };
    const { masked, unmasked } = await worker.runUntil(async () => ({
      masked: await run({}),
      unmasked: await run({ context: { mask: false } }),
    }));
    const billed = (r: typeof masked) => r.billing?.inputTokens ?? r.usage.inputTokens;
    const saved = 1 - billed(masked) / billed(unmasked);
    const inputCost = (r: typeof masked) => {
      const cost = r.billing?.cost;
      return cost ? cost.input + cost.cacheRead + cost.cacheWrite : 0;
    };
    const inputPrice = lookupModel(parseModelRef(MODEL)).prices.input / 1e6;
    const tokenEquivalents = (r: typeof masked) => inputCost(r) / inputPrice;
    const cachedSaved = 1 - inputCost(masked) / inputCost(unmasked);
    const cacheTokens = (r: typeof masked) => ({
      uncached: r.billing?.uncachedInputTokens ?? 0,
      cacheRead: r.billing?.cacheReadTokens ?? 0,
      cacheWrite: r.billing?.cacheWriteTokens ?? 0,
    });
    const sameAnswer = masked.finalText === unmasked.finalText && /checksum/.test(masked.finalText);
    const figures = {
      billedInputTokens: figure(billed(masked), 'tokens', 'billed input tokens, masked', {
        baseline: billed(unmasked),
      }),
      inputTokensSaved: figure(saved * 100, '%', 'input tokens saved by masking', { target: '>= 40' }),
      cachedInputCost: figure(
        tokenEquivalents(masked),
        'tokens',
        'input cost with prompt caching, masked (in uncached input tokens)',
        { baseline: tokenEquivalents(unmasked) },
      ),
      cachedCostSaved: figure(cachedSaved * 100, '%', 'input cost with prompt caching saved by masking', {
        target: '>= 40',
      }),
      sameFinalAnswer: figure(sameAnswer ? 1 : 0, 'bool', 'same final answer as unmasked', { target: '== 1' }),
    };
    writeBenchResult('tokens', figures, {
      args,
      description: `a ${TURNS}-turn job reading a 10 KB file each turn, masked (default) vs unmasked context, with prompt caching`,
      details: {
        turns: { masked: masked.turns, unmasked: unmasked.turns },
        finalText: masked.finalText,
        costUsd: { masked: masked.costUsd, unmasked: unmasked.costUsd },
        inputTokens: { masked: cacheTokens(masked), unmasked: cacheTokens(unmasked) },
      },
    });
    return [figures.inputTokensSaved, figures.cachedCostSaved, figures.sameFinalAnswer].every((f) => f.met === true);
  } finally {
    await connection.close();
    await registry.close();
    await fake.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
