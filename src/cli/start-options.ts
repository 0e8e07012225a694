/**
 * The flags that say what a run is (agent kind, models, limits, tools, call settings, the kind's
 * own flags, the task) and the start options they build. `run` starts a run with them; `schedule create`
 * keeps them in a schedule's action.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { StartAgentOptions } from '../client';
import type { RunLayer } from '../contracts/agent-options';
import type { KindRegistry } from '../kinds';
import { UsageError } from './exit-codes';
import { callFlags, callOptionsOf } from './call-options';
import { readClientTools } from './client-tools-file';
import { configSubAgents, readSubAgents } from './agents-file';
import { readPlanFile } from './plan-file';
import { storeMessagesFile } from './messages-file';
import { checkModelSpecs } from './model-check';
import { mcpSelectionOf } from './mcp-choice';
import {
  collect,
  duration,
  limitsOf,
  positiveInt,
  usdArg,
  spec,
  toolTimeout,
  tenantArg,
  priorityArg,
  type RunOptions,
} from './option-parsers';
import { readTaskInput } from './task-input';
import { kindFlags, kindOptionsOf } from './kind-flags';
import { modelByKey } from './key-model';
import { definedFields } from '../common/type-helpers';

/** Environment variable with the default model spec of `run`. */
const MODEL_ENV = 'DURABLE_AGENTS_MODEL';

function workspaceOf(dir: string | undefined): string | undefined {
  if (!dir) return undefined;
  const resolved = path.resolve(dir);
  if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--workspace ${resolved} is not a directory`);
  return resolved;
}

/** Declares the run's flags, each kind's own, and its `[task]` argument on a command that starts runs. */
export function startFlags(command: Command, kinds: KindRegistry): Command {
  callFlags(command)
    .argument('[task]', 'what the agent should do; `-` reads it from stdin')
    .option('--task-file <file>', 'read the task from FILE (`-`: stdin) and pass it by reference (any size)')
    .option('--agent <kind>', `agent kind: ${kinds.names.join(' | ')}`, 'react')
    .option(
      '--model <spec>',
      `model spec, e.g. anthropic/claude-sonnet-4-6 (default: $${MODEL_ENV}, else by the provider key set)`,
      spec,
    )
    .option(
      '--fallback <spec>',
      'fallback model, tried in order when the model keeps failing (repeatable)',
      (v: string, p: string[]) => collect(spec(v), p),
    )
    .option('--max-turns <n>', 'stop after this many model turns', positiveInt)
    .option('--max-tokens <n>', 'stop near this many tokens in total (input, output and cache)', positiveInt)
    .option('--max-cost <usd>', 'stop near this cost in USD', usdArg)
    .option('--max-tool-calls-per-turn <n>', 'tool calls one answer may make', positiveInt)
    .option('--approval-timeout <duration>', 'how long an approval may wait before it counts as rejected', duration)
    .option('--tool-timeout <tool=duration>', 'timeout of one tool, e.g. fs_read=30s (repeatable)', toolTimeout)
    .option('--tools <names>', 'comma-separated tool names or prefix* patterns the agent may use (default: all)')
    .option(
      '--mcp-server <name>',
      'an MCP server of the worker\'s config ("mcpServers") whose tools the agent may use (repeatable)',
      collect,
    )
    .option(
      '--mcp <file>',
      'the run\'s own mcpServers JSON config, sent as written; only for a worker that takes one ("runMcpConfigs")',
    )
    .option(
      '--client-tools <file>',
      'JSON array of client tools the run declares ({ name, description, parameters }); answer them with tool-result',
    )
    .option(
      '--agents <file>',
      'JSON object of sub-agents by name ({ description, instructions, model, tools, maxTurns, kind }), ' +
        'on top of the config file\'s "agents"',
    )
    .option('--approve <tool>', 'tool (or prefix*) that needs approval before it runs (repeatable)', collect)
    .option('--workspace <dir>', 'root directory the file tools may use (default: none, file tools refuse)')
    .option('--stream', 'stream model calls, publishing their tokens to watchers (`watch`)')
    .option('--tenant <name>', 'the tenant the run works for: its fair share of every queue (docs/fleet.md)', tenantArg)
    .option('--priority <n>', "1 (first) to 5 (last): the order of the run's calls in a backlog", priorityArg)
    .option(
      '--expected-cost <usd>',
      "what the run expects to spend: reserved against its tenant's budget before it starts (docs/fleet.md)",
      usdArg,
    )
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
    .option(
      '--messages <file>',
      'start from this conversation: a JSON array of user, assistant and tool_result messages; the task comes after it',
    )
    .option(
      '--plan <file>',
      'a plan the run recites each turn and the model ticks (JSON array or Markdown checklist); see set-plan',
    )
    .option('--ask-user', 'offer the model an ask_user tool: its questions wait for `answer ID TEXT`');
  return kindFlags(command, kinds);
}

/**
 * The model a run gets by the provider key set, when neither `--model`, a run it goes on from nor
 * `$DURABLE_AGENTS_MODEL` names one.
 */
export const keyModelOf = (o: Pick<RunOptions, 'model' | 'continue'>, env: NodeJS.ProcessEnv) =>
  o.model || o.continue || env[MODEL_ENV] ? undefined : modelByKey(env);

/**
 * The start options the flags ask for, checked as far as the CLI can before anything is sent (model
 * specs, MCP servers and file, workspace, the kind's own options); the task is read as {@link readTaskInput} says.
 * The model may come from a layer under them: the run it goes on from, else `$DURABLE_AGENTS_MODEL`
 * (the client's defaults, {@link cliDefaults}).
 */
export async function startOptionsOf(
  taskArg: string | undefined,
  o: RunOptions,
  env: NodeJS.ProcessEnv,
  kinds: KindRegistry,
): Promise<StartAgentOptions> {
  const edge = kinds.find(o.agent);
  if (!edge) throw new UsageError(`unknown --agent "${o.agent}"; use one of: ${kinds.names.join(', ')}`);
  const chosen = o.model ?? keyModelOf(o, env)?.model;
  if (!chosen && !o.continue && !env[MODEL_ENV])
    throw new UsageError(
      `no model: pass --model provider/model, set ${MODEL_ENV}, or set ANTHROPIC_API_KEY or OPENAI_API_KEY`,
    );
  const own = kindOptionsOf(edge.facts.name, o as unknown as Record<string, unknown>, kinds);
  const kindOptions = own === undefined || edge.optionsKey === undefined ? {} : { [edge.optionsKey]: own };
  checkModelSpecs(
    [...(o.model ? [o.model] : []), ...(o.fallback ?? []), ...kinds.models(edge.facts.name, kindOptions)],
    env,
  );
  const mcp = await mcpSelectionOf(o.mcpServer, o.mcp, env);
  const workspaceRoot = workspaceOf(o.workspace);
  const allow = o.tools
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const limits = limitsOf(o);
  const callOptions = callOptionsOf(o);
  const taskInput = await readTaskInput(taskArg, o.taskFile, env);
  const agents = readSubAgents(o.agents);
  const session = {
    ...definedFields({ idleWaitMs: o.idleWait }),
    ...(o.messages ? { initialMessages: await storeMessagesFile(o.messages, env) } : {}),
  };
  const fleet = definedFields({ tenant: o.tenant, priority: o.priority, expectedCostUsd: o.expectedCost });
  const tools = {
    ...(allow ? { allow } : {}),
    ...mcp,
    ...(workspaceRoot ? { workspaceRoot } : {}),
    ...(o.clientTools ? { clientTools: readClientTools(o.clientTools) } : {}),
    ...(o.approve ? { approve: o.approve } : {}),
    ...(o.askUser ? { askUser: true } : {}),
  };
  return {
    ...taskInput,
    kind: o.agent,
    ...(chosen ? { model: o.fallback ? { primary: chosen, fallbacks: o.fallback } : chosen } : {}),
    ...callOptions,
    ...(Object.keys(limits).length ? { limits } : {}),
    ...(Object.keys(tools).length ? { tools } : {}),
    ...(agents ? { agents } : {}),
    ...(o.stream ? { stream: true } : {}),
    ...kindOptions,
    ...(o.continue ? { continueFrom: o.continue } : {}),
    ...(Object.keys(session).length ? { session } : {}),
    ...(Object.keys(fleet).length ? { fleet } : {}),
    ...(o.plan ? { plan: readPlanFile(o.plan) } : {}),
  };
}

/**
 * The layer of options under every run the CLI starts: the config file's sub-agents and the model
 * of `$DURABLE_AGENTS_MODEL`.
 */
export function cliDefaults(env: NodeJS.ProcessEnv): RunLayer {
  const agents = configSubAgents(env);
  return {
    ...(env[MODEL_ENV] ? { model: env[MODEL_ENV] } : {}),
    ...(agents ? { agents } : {}),
  };
}
