/**
 * The one place a protocol request becomes a run: a published agent, the caller's tenant and the
 * request's task (and how it goes on from an earlier run) give the client's start options. Every
 * protocol starts its runs through {@link startOptionsFor}.
 */
import type { StartAgentOptions } from '../client';
import type { InitialMessage } from '../contracts/run-spec';
import type { PublishedAgent } from './published-agents';

/** What the gateway adds to every run it starts. */
export interface RunDefaults {
  /** The model of an agent that names none. */
  model?: string;
  /** The root the built-in file tools are jailed to, on the workers. */
  workspace?: string;
}

/** Who asks: the tenant of the caller's key (absent on a loopback gateway without keys). */
export interface Caller {
  tenant?: string;
  /** The key's name in the key file (never the key): what logs and refusals name. */
  keyName?: string;
}

/** A protocol request to run an agent. */
export interface RunRequest {
  task: string;
  caller: Caller;
  /** The run's id (an AG-UI run id, an A2A task id the caller chose); default a fresh one. */
  id?: string;
  /** Go on from this ended run's whole conversation (a continued thread, context or response). */
  continueFrom?: string;
  /** The conversation before the task, as the request gave it (a Responses input's earlier messages). */
  history?: InitialMessage[];
  /** Keep the run open this long after its answer for a follow-up in the same task (ms). */
  idleWaitMs?: number;
}

/** The client's start options for a published agent and a protocol request. */
export function startOptionsFor(
  name: string,
  agent: PublishedAgent,
  request: RunRequest,
  defaults: RunDefaults = {},
): StartAgentOptions {
  const model = agent.model ?? defaults.model;
  if (!model) throw new Error(`agent "${name}" names no model and the gateway has no default model (--model)`);
  const limits = {
    ...(agent.maxTurns ? { maxTurns: agent.maxTurns } : {}),
    ...(agent.maxCostUsd ? { maxCostUsd: agent.maxCostUsd } : {}),
  };
  const tools = {
    ...(agent.tools ? { allow: agent.tools } : {}),
    ...(defaults.workspace ? { workspaceRoot: defaults.workspace } : {}),
    ...(agent.approve?.length ? { approve: agent.approve } : {}),
    ...(agent.askUser ? { askUser: true } : {}),
  };
  return {
    task: request.task,
    model,
    stream: true,
    ...(agent.kind ? { kind: agent.kind } : {}),
    ...(agent.instructions ? { systemPrompt: agent.instructions } : {}),
    ...(agent.call ? { call: agent.call } : {}),
    ...(Object.keys(tools).length ? { tools } : {}),
    ...(Object.keys(limits).length ? { limits } : {}),
    ...(request.caller.tenant ? { fleet: { tenant: request.caller.tenant } } : {}),
    ...(request.id ? { id: request.id } : {}),
    ...(request.continueFrom ? { continueFrom: request.continueFrom } : {}),
    ...(request.idleWaitMs || request.history
      ? {
          session: {
            ...(request.idleWaitMs ? { idleWaitMs: request.idleWaitMs } : {}),
            ...(request.history ? { initialMessages: request.history } : {}),
          },
        }
      : {}),
  };
}
