/**
 * `run`: checks everything it can before a run starts (model specs, MCP file, workspace, limits,
 * payload size), starts the run, says at once which run it is and where to see it, then waits.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { AGENT_WORKFLOWS, isAgentKind } from '../../contracts/agent-workflows';
import { modelLabel } from '../../contracts/model-ref';
import type { AgentClient } from '../../client';
import { exitCodeOfResult, UsageError } from '../exit-codes';
import { callFlags, callOptionsOf } from '../call-options';
import { readClientTools } from '../client-tools-file';
import { checkMcpFile, checkModelSpecs } from '../model-check';
import {
  collect,
  duration,
  limitsOf,
  pevOptionsOf,
  positiveInt,
  positiveNumber,
  roleModel,
  spec,
  toolTimeout,
  tenantArg,
  priorityArg,
  type RunOptions,
} from '../option-parsers';
import { formatResult, formatSummary } from '../render-run';
import { whileWaiting } from '../run-wait';
import { readTaskInput } from '../task-input';
import { noteOf, withAgents, type AgentCommandDeps } from './agent-deps';
import { watchAndPrint } from './read-commands';

/** Environment variable with the default model spec of `run`. */
export const MODEL_ENV = 'DURABLE_AGENTS_MODEL';

function directory(flag: string, dir: string | undefined): string | undefined {
  if (!dir) return undefined;
  const resolved = path.resolve(dir);
  if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`${flag} ${resolved} is not a directory`);
  return resolved;
}

export function registerRunCommand(program: Command, deps: AgentCommandDeps): void {
  callFlags(program.command('run'))
    .description('Start an agent run on TASK and wait for its result (or print its id with --detach).')
    .argument('[task]', 'what the agent should do; `-` reads it from stdin')
    .option('--task-file <file>', 'read the task from FILE (`-`: stdin) and pass it by reference (any size)')
    .option('--id <id>', 'the run id (default agent-<uuid>); an id used before is refused')
    .option('--agent <kind>', `agent kind: ${Object.keys(AGENT_WORKFLOWS).join(' | ')}`, 'react')
    .option('--model <spec>', `model spec, e.g. anthropic/claude-sonnet-4-6 (default: $${MODEL_ENV})`, spec)
    .option(
      '--fallback <spec>',
      'fallback model, tried in order when the model keeps failing (repeatable)',
      (v: string, p: string[]) => collect(spec(v), p),
    )
    .option('--max-turns <n>', 'stop after this many model turns', positiveInt)
    .option('--max-tokens <n>', 'stop near this many tokens in total (input, output and cache)', positiveInt)
    .option('--max-cost <usd>', 'stop near this cost in USD', positiveNumber)
    .option('--max-tool-calls-per-turn <n>', 'tool calls one answer may make', positiveInt)
    .option('--approval-timeout <duration>', 'how long an approval may wait before it counts as rejected', duration)
    .option('--tool-timeout <tool=duration>', 'timeout of one tool, e.g. fs_read=30s (repeatable)', toolTimeout)
    .option('--tools <names>', 'comma-separated tool names or prefix* patterns the agent may use (default: all)')
    .option('--mcp <file>', 'mcpServers JSON config whose tools the agent may use')
    .option(
      '--client-tools <file>',
      'JSON array of client tools the run declares ({ name, description, parameters }); answer them with tool-result',
    )
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
    .option(
      '--continue <id>',
      "go on from that run's conversation (a run that has ended): it comes first, by reference, then TASK; " +
        "the run's model unless --model says otherwise",
    )
    .option(
      '--idle-wait <duration>',
      'after an answer, wait this long (e.g. 10m) for a follow-up before completing',
      duration,
    )
    .option('--tenant <name>', 'the tenant the run works for: its fair share of every queue (docs/fleet.md)', tenantArg)
    .option('--priority <n>', "1 (first) to 5 (last): the order of the run's calls in a backlog", priorityArg)
    .action(async (taskArg: string | undefined, o: RunOptions) => {
      if (!isAgentKind(o.agent))
        throw new UsageError(`unknown --agent "${o.agent}"; use one of: ${Object.keys(AGENT_WORKFLOWS).join(', ')}`);
      if (o.watch && (o.detach || o.json))
        throw new UsageError('--watch prints as the run works; it cannot be combined with --detach or --json');
      // A run that goes on from another takes that run's model unless told otherwise.
      const given = o.model ?? (o.continue ? undefined : deps.env[MODEL_ENV]);
      if (!given && !o.continue) throw new UsageError(`no model: pass --model provider/model or set ${MODEL_ENV}`);
      const pev = pevOptionsOf(o);
      checkModelSpecs(
        [...(given ? [given] : []), ...(o.fallback ?? []), ...Object.values(pev?.models ?? {})],
        deps.env,
      );
      let mcpConfigPath: string | undefined;
      if (o.mcp) {
        mcpConfigPath = path.resolve(o.mcp);
        if (!fs.existsSync(mcpConfigPath)) throw new UsageError(`--mcp file ${mcpConfigPath} does not exist`);
        await checkMcpFile(mcpConfigPath);
      }
      const workspaceRoot = directory('--workspace', o.workspace);
      const allow = o.tools
        ?.split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const limits = limitsOf(o);
      const callOptions = callOptionsOf(o);
      const { task, taskHash } = await readTaskInput(taskArg, o.taskFile, deps.env);
      await withAgents(deps, async (agents, uiLink) => {
        const model = given ?? (await continuedModel(agents, o.continue as string)) ?? deps.env[MODEL_ENV];
        if (!model) throw new UsageError(`no model: pass --model provider/model or set ${MODEL_ENV}`);
        const id = await agents.start({
          task,
          ...(taskHash ? { taskHash } : {}),
          ...(o.id ? { id: o.id } : {}),
          kind: o.agent,
          model,
          fallbacks: o.fallback,
          ...(Object.keys(limits).length ? { limits } : {}),
          tools: {
            ...(allow ? { allow } : {}),
            ...(mcpConfigPath ? { mcpConfigPath } : {}),
            ...(workspaceRoot ? { workspaceRoot } : {}),
            ...(o.clientTools ? { clientTools: readClientTools(o.clientTools) } : {}),
          },
          approve: o.approve,
          ...callOptions,
          ...(o.stream || o.watch ? { stream: true } : {}),
          ...(pev ? { pev } : {}),
          ...(o.continue ? { continueFrom: o.continue } : {}),
          ...(o.idleWait !== undefined ? { idleWaitMs: o.idleWait } : {}),
          ...(o.tenant !== undefined ? { tenant: o.tenant } : {}),
          ...(o.priority !== undefined ? { priority: o.priority } : {}),
        });
        await followStarted(deps, agents, id, o, uiLink);
      });
    });
}

/** `fork`: a run from the first turns of an ended run, with its options unless told otherwise. */
export function registerForkCommand(program: Command, deps: AgentCommandDeps): void {
  program
    .command('fork')
    .description(
      "Start a run from the first N turns of run ID (one that has ended): its conversation up to turn N's " +
        'tool results, by reference, then TASK; without TASK the new run answers those results. Model, tools, ' +
        "limits and call settings are the earlier run's unless given.",
    )
    .argument('<id>', 'the run to fork')
    .argument('[task]', 'what to ask after turn N')
    .requiredOption('--at-turn <n>', 'the turns taken over', positiveInt)
    .option('--model <spec>', 'another model for the new run', spec)
    .option('--id <id>', 'workflow id of the new run (default agent-<uuid>)')
    .option('--idle-wait <duration>', 'after an answer, wait this long for a follow-up before completing', duration)
    .option('--detach', 'print the new run id and return')
    .option('--json', 'print the result (or, with --detach, the id) as JSON')
    .option('--watch', 'print events and tokens as the run works')
    .action(
      async (
        source: string,
        task: string | undefined,
        o: Pick<RunOptions, 'model' | 'id' | 'idleWait' | 'detach' | 'json' | 'watch'> & { atTurn: number },
      ) => {
        if (o.watch && (o.detach || o.json))
          throw new UsageError('--watch prints as the run works; it cannot be combined with --detach or --json');
        if (o.model) checkModelSpecs([o.model], deps.env);
        await withAgents(deps, async (agents, uiLink) => {
          const id = await agents.fork(source, {
            atTurn: o.atTurn,
            ...(task ? { task } : {}),
            ...(o.model ? { model: o.model } : {}),
            ...(o.id ? { id: o.id } : {}),
            ...(o.idleWait !== undefined ? { idleWaitMs: o.idleWait } : {}),
            ...(o.watch ? { stream: true } : {}),
          });
          await followStarted(deps, agents, id, o, uiLink);
        });
      },
    );
}

/** The model of the run `id` goes on from, as a spec. */
async function continuedModel(agents: AgentClient, id: string): Promise<string | undefined> {
  const model = (await agents.startOptions(id))?.model;
  return model === undefined ? undefined : typeof model === 'string' ? model : modelLabel(model);
}

/** After a start: says which run it is and where to see it, then waits as the flags ask (`run`, `fork`). */
async function followStarted(
  deps: AgentCommandDeps,
  agents: AgentClient,
  id: string,
  o: Pick<RunOptions, 'detach' | 'json' | 'watch'>,
  uiLink: (id: string) => Promise<string | undefined>,
): Promise<void> {
  const note = noteOf(deps);
  const link = await uiLink(id);
  note(`run ${id} started on task queue "${agents.taskQueue}"${link ? `\nWeb UI: ${link}` : ''}`);
  if (o.detach) {
    deps.out(o.json ? JSON.stringify({ id }) : id);
    return;
  }
  if (o.watch) {
    const done = await whileWaiting(deps, agents, id, () => watchAndPrint(deps, agents, id, {}), {
      progress: false,
    });
    const result = await agents.result(id);
    // The watch has shown the final text and, with its `done` line, how the run ended.
    if (!done) deps.out(formatSummary(result));
    deps.setExitCode?.(exitCodeOfResult(result));
    return;
  }
  const result = await whileWaiting(deps, agents, id, () => agents.result(id));
  deps.out(o.json ? JSON.stringify(result) : formatResult(result));
  deps.setExitCode?.(exitCodeOfResult(result));
}
