/**
 * An application's eval, as a user writes it (docs/evals.md): the authored case in evals/ run
 * against two candidates of the agent, each scripted on the fake provider. The tools count their
 * calls: an eval runs none of them. The first candidate does the job; the second regresses (it
 * refunds a made-up amount without looking the order up), and the gate fails it.
 */
import path from 'node:path';
import { z } from 'zod';
import { gateFailures, parseGate, readCaseFiles, runEval, type EvalReport } from 'durable-agents/evals';
import { createTestEnvironment, reply, type FakeStep, type TestEnvironment } from 'durable-agents/testing';
import { ToolRegistry, defineTool } from 'durable-agents/worker';

const MODEL = 'anthropic/claude-sonnet-4-6';
const GATE = 'pass>=1,drift==0';

/** What the tools did: an eval must leave this empty. */
const executed: string[] = [];

function tools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'lookup_order',
      description: 'Looks an order up.',
      parameters: z.object({ order: z.string() }),
      execute: ({ order }) => {
        executed.push(`lookup_order ${order}`);
        return '{}';
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'issue_refund',
      description: 'Refunds an amount of an order to the customer.',
      parameters: z.object({ order: z.string(), amount: z.number() }),
      sideEffects: true,
      execute: ({ order, amount }) => {
        executed.push(`issue_refund ${order} ${amount}`);
        return 'refunded';
      },
    }),
  );
  return registry;
}

/** A candidate's answers, by how many it has given in its run. */
type Candidate = (answers: number) => FakeStep;

const doesTheJob: Candidate = (answers) =>
  [
    reply.toolCalls([{ name: 'lookup_order', arguments: { order: '1042' } }]),
    reply.toolCalls([{ name: 'issue_refund', arguments: { order: '1042', amount: 59.9 } }]),
    reply.text('Refunded 59.90 for order 1042: refund R-77.'),
  ][answers];

const regresses: Candidate = (answers) =>
  [
    reply.toolCalls([{ name: 'issue_refund', arguments: { order: '1042', amount: 100 } }]),
    reply.text('The refund is issued.'),
  ][answers];

describe('the refund agent, evaluated', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await createTestEnvironment({ tools: tools() });
  }, 120_000);
  afterAll(() => env?.teardown());
  beforeEach(() => (executed.length = 0));

  async function evaluate(candidate: Candidate): Promise<{ report: EvalReport; failures: string[] }> {
    env.fake.respond((request) => {
      const messages = request.body.messages as { role: string }[];
      return candidate(messages.filter((m) => m.role === 'assistant').length);
    });
    const cases = await readCaseFiles([path.join(__dirname, 'evals')]);
    const report = await runEval(env.agentClient, cases, { model: MODEL, fleet: { tenant: 'evals' } });
    const gate = parseGate(GATE);
    if ('problem' in gate) throw new Error(gate.problem);
    return { report, failures: gateFailures(gate.clauses, report.summary) };
  }

  it('the candidate that does the job passes the gate, and no tool ran', async () => {
    const { report, failures } = await evaluate(doesTheJob);
    expect(report.cases[0].graders.filter((g) => !g.pass)).toEqual([]);
    expect(report.summary).toMatchObject({ cases: 1, passed: 1, drift: 0 });
    expect(failures).toEqual([]);
    expect(executed).toEqual([]);
  });

  it('the candidate that regresses fails the gate, naming the first grader it fails; its refund never ran', async () => {
    const { report, failures } = await evaluate(regresses);
    expect(report.cases[0]).toMatchObject({
      pass: false,
      drift: 1,
      failed: { name: 'tools in order: lookup_order, issue_refund' },
    });
    expect(failures).toEqual(['pass>=1: pass is 0', 'drift==0: drift is 1']);
    expect(executed).toEqual([]);
  });
});
