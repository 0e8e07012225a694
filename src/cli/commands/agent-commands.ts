/**
 * Agent commands: run, steer, follow-up, approve, reject, state, result, stop, list. Each prints
 * what the user asked for; every failure is one line (see cli/index.ts) and a non-zero exit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { AgentClient, AgentClientError } from '../../client';
import { connectClient, connectionSettingsFromEnv } from '../../connection/connection-settings';
import { AGENT_WORKFLOWS, isAgentKind } from '../../contracts/agent-workflows';
import { formatResult, formatState, formatSummary, formatTrace } from '../render-run';
import { WatchPrinter } from '../watch-output';
import { collect, fallbackModel, parseArgsJson, pevOptionsOf, positiveInt, roleModel } from '../option-parsers';
import { MODEL_ENV, runModel, spec, type RunOptions } from '../option-parsers';
import { loadLlmConfig } from '../../llm';

/** What the commands need from outside; tests pass their own. */
export interface AgentCommandDeps {
  /** A client for one command, and how to release it. */
  connect(): Promise<{ agents: AgentClient; close(): Promise<void> }>;
  out(text: string): void;
  /** Writes text as it is (token streams); default stdout. */
  write?(text: string): void;
  env: NodeJS.ProcessEnv;
}

const defaultDeps: AgentCommandDeps = {
  async connect() {
    const settings = connectionSettingsFromEnv();
    // Runs naming a provider this machine's config does not know are refused before they start.
    const providers = Object.keys(loadLlmConfig({ env: process.env }).providers);
    const client = await connectClient(settings);
    const agents = new AgentClient(client, settings.taskQueue, { providers });
    return { agents, close: () => client.connection.close() };
  },
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  write: (text) => process.stdout.write(text),
  env: process.env,
};

const json = (value: unknown): string => JSON.stringify(value, null, 2);

export function registerAgentCommands(program: Command, deps: AgentCommandDeps = defaultDeps): void {
  const withClient = async <T>(fn: (agents: AgentClient) => Promise<T>): Promise<T> => {
    const { agents, close } = await deps.connect();
    try {
      return await fn(agents);
    } finally {
      await close().catch(() => undefined);
    }
  };

  program
    .command('run')
    .description('Start an agent run on TASK and wait for its result (or print its id with --detach).')
    .argument('<task>', 'what the agent should do')
    .option('--agent <kind>', `agent kind: ${Object.keys(AGENT_WORKFLOWS).join(' | ')}`, 'react')
    .option('--model <spec>', `model spec, e.g. anthropic/claude-sonnet-4-6 (default: $${MODEL_ENV})`, spec)
    .option(
      '--fallback <spec>',
      'fallback model, tried in order when the model keeps failing (repeatable)',
      fallbackModel,
    )
    .option('--max-turns <n>', 'stop after this many model turns', positiveInt)
    .option('--tools <names>', 'comma-separated tool names or prefix* patterns the agent may use (default: all)')
    .option('--mcp <file>', 'mcpServers JSON config whose tools the agent may use')
    .option('--approve <tool>', 'tool (or prefix*) that needs approval before it runs (repeatable)', collect)
    .option('--workspace <dir>', 'root directory the file tools may use (default: none, file tools refuse)')
    .option('--detach', 'print the run id and return without waiting')
    .option('--json', 'print the result as one JSON object')
    .option('--stream', 'stream model calls, publishing their tokens to watchers (`watch`)')
    .option('--watch', 'print events and tokens while the run works, then the result (implies --stream)')
    .option(
      '--mode <mode>',
      'pev agent: pev (planner/executor/verifier cycles) or plan (plan once, execute, summarise)',
    )
    .option(
      '--role-model <role=spec>',
      'pev agent: model of one role, e.g. executor=openai/gpt-4o-mini (repeatable)',
      roleModel,
    )
    .option(
      '--prompts <dir>',
      'pev agent: directory with <role>.md business context and optional core/<role>.md templates',
    )
    .option('--max-planning-rounds <n>', 'pev agent: planner rounds per cycle (default 3)', positiveInt)
    .option('--max-executor-rounds <n>', 'pev agent: executor rounds per todo (default 10)', positiveInt)
    .option('--max-cycles <n>', 'pev agent: planner/executor/verifier cycles (default 3)', positiveInt)
    .option('--confirm-plan', 'pev agent: wait for `plan <id>` to approve each plan before executing it')
    .action(async (task: string, o: RunOptions) => {
      if (!isAgentKind(o.agent))
        throw new AgentClientError(
          `unknown --agent "${o.agent}"; use one of: ${Object.keys(AGENT_WORKFLOWS).join(', ')}`,
        );
      const model = runModel(o, deps.env);
      let mcpConfigPath: string | undefined;
      if (o.mcp) {
        mcpConfigPath = path.resolve(o.mcp);
        if (!fs.existsSync(mcpConfigPath)) throw new AgentClientError(`--mcp file ${mcpConfigPath} does not exist`);
      }
      let workspaceRoot: string | undefined;
      if (o.workspace) {
        workspaceRoot = path.resolve(o.workspace);
        if (!fs.statSync(workspaceRoot, { throwIfNoEntry: false })?.isDirectory())
          throw new AgentClientError(`--workspace ${workspaceRoot} is not a directory`);
      }
      const allow = o.tools
        ? o.tools
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean)
        : undefined;
      const pev = pevOptionsOf(o);
      if (o.watch && (o.detach || o.json))
        throw new AgentClientError('--watch prints as the run works; it cannot be combined with --detach or --json');
      await withClient(async (agents) => {
        const id = await agents.start({
          task,
          kind: o.agent,
          model,
          fallbacks: o.fallback,
          ...(o.maxTurns ? { limits: { maxTurns: o.maxTurns } } : {}),
          tools: {
            ...(allow ? { allow } : {}),
            ...(mcpConfigPath ? { mcpConfigPath } : {}),
            ...(workspaceRoot ? { workspaceRoot } : {}),
          },
          approve: o.approve,
          ...(o.stream || o.watch ? { stream: true } : {}),
          ...(pev ? { pev } : {}),
        });
        if (o.watch) {
          deps.out(`run ${id}`);
          await watchRun(agents, id, { tokens: true });
          // The watch has shown the final text.
          deps.out(formatSummary(await agents.result(id)));
          return;
        }
        if (o.detach) {
          deps.out(o.json ? JSON.stringify({ id }) : id);
          return;
        }
        const result = await agents.result(id);
        deps.out(o.json ? JSON.stringify(result) : formatResult(result));
      });
    });

  const watchRun = async (agents: AgentClient, id: string, o: { json?: boolean; tokens?: boolean; from?: number }) => {
    const printer = new WatchPrinter(deps.write ?? deps.out, { json: o.json, runId: id });
    for await (const item of agents.watch(id, {
      tokens: o.tokens !== false,
      ...(o.from !== undefined ? { fromOffset: o.from } : {}),
    }))
      printer.print(item);
    printer.endLine();
  };

  program
    .command('watch')
    .description(
      'Follow a run as it works: its events and, for runs started with --stream, the model tokens; ends when ' +
        'the run ends.',
    )
    .argument('<id>')
    .option('--json', 'print one JSON object per line (topic, offset, event or delta)')
    .option('--no-tokens', 'events only')
    .option('--from <offset>', 'start at this stream offset (default: the oldest kept)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`"${v}" is not an offset (0 or more).`);
      return n;
    })
    .action((id: string, o: { json?: boolean; tokens?: boolean; from?: number }) =>
      withClient((agents) => watchRun(agents, id, o)),
    );

  program
    .command('steer')
    .description('Redirect a running agent: remaining tool calls of its turn are skipped, TEXT goes to the model next.')
    .argument('<id>')
    .argument('<text>')
    .action((id: string, text: string) =>
      withClient(async (agents) => deps.out(`steering sent (message ${await agents.steer(id, text)})`)),
    );

  program
    .command('follow-up')
    .description('Queue TEXT for when the agent would otherwise finish; it starts a new turn.')
    .argument('<id>')
    .argument('<text>')
    .action((id: string, text: string) =>
      withClient(async (agents) => deps.out(`follow-up queued (message ${await agents.followUp(id, text)})`)),
    );

  program
    .command('approve')
    .description('Approve a pending tool call, optionally with edited arguments.')
    .argument('<id>')
    .argument('<call-id>')
    .option('--args <json>', 'run the tool with these arguments instead (a JSON object)')
    .action((id: string, callId: string, o: { args?: string }) =>
      withClient(async (agents) => {
        const args = o.args === undefined ? undefined : parseArgsJson(o.args);
        const r = await agents.approve(id, callId, args ? { args } : {});
        deps.out(`${r.tool} ${r.toolCallId}: ${r.state}${args ? ' with edited arguments' : ''}`);
      }),
    );

  program
    .command('plan')
    .description('Approve or reject the plan a pev run started with --confirm-plan is waiting on.')
    .argument('<id>')
    .option('--reject', 'reject the plan; the planner plans again')
    .option('--feedback <text>', 'what to change (given to the planner)')
    .action((id: string, o: { reject?: boolean; feedback?: string }) =>
      withClient(async (agents) => {
        const r = await agents.decidePlan(id, !o.reject, o.feedback);
        deps.out(`plan of cycle ${r.cycle}: ${r.approved ? 'approved' : 'rejected'}`);
      }),
    );

  program
    .command('reject')
    .description('Reject a pending tool call; the model reads the reason.')
    .argument('<id>')
    .argument('<call-id>')
    .option('--reason <text>', 'why (shown to the model)')
    .action((id: string, callId: string, o: { reason?: string }) =>
      withClient(async (agents) => {
        const r = await agents.reject(id, callId, o.reason ? { reason: o.reason } : {});
        deps.out(`${r.tool} ${r.toolCallId}: ${r.state}`);
      }),
    );

  program
    .command('state')
    .description('Show a run: status, turn, model, usage, pending approvals and client calls.')
    .argument('<id>')
    .option('--json', 'print the full state as JSON')
    .action((id: string, o: { json?: boolean }) =>
      withClient(async (agents) => {
        const s = await agents.state(id);
        deps.out(o.json ? json(s) : formatState(s));
      }),
    );

  program
    .command('trace')
    .description("Show a run's trace: model and tool totals and timings, then its steps turn by turn.")
    .argument('<id>')
    .option('--json', 'print the trace as JSON')
    .action((id: string, o: { json?: boolean }) =>
      withClient(async (agents) => {
        const t = await agents.trace(id);
        deps.out(o.json ? json(t) : formatTrace(t));
      }),
    );

  program
    .command('result')
    .description('Wait for a run to end and print its result.')
    .argument('<id>')
    .option('--json', 'print the result as one JSON object')
    .action((id: string, o: { json?: boolean }) =>
      withClient(async (agents) => {
        const r = await agents.result(id);
        deps.out(o.json ? JSON.stringify(r) : formatResult(r));
      }),
    );

  program
    .command('stop')
    .description('Stop a run after its current step; open tool calls get results.')
    .argument('<id>')
    .action((id: string) =>
      withClient(async (agents) => {
        await agents.stop(id);
        deps.out(`stop sent to ${id}`);
      }),
    );

  program
    .command('list')
    .description('List agent runs, newest first.')
    .option('--json', 'print as JSON')
    .option('--limit <n>', 'at most this many', positiveInt, 50)
    .action((o: { json?: boolean; limit: number }) =>
      withClient(async (agents) => {
        const runs = await agents.list(o.limit);
        if (o.json) return deps.out(json(runs));
        if (runs.length === 0) return deps.out('no agent runs');
        for (const r of runs) {
          deps.out(
            `${r.id}  ${r.kind ?? '?'}  ${r.agentStatus ?? r.status.toLowerCase()}  ${r.model ?? ''}  ` +
              `$${(r.costUsd ?? 0).toFixed(4)}  ${r.startTime}`,
          );
        }
      }),
    );
}
