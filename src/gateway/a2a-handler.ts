/**
 * The A2A request handler of the gateway (`@a2a-js/sdk`'s `A2ARequestHandler`, behind the SDK's
 * JSON-RPC transport): a message starts a run of the skill it names, a message to a task answers
 * what the run waits for or follows up on it, and a task is read, cancelled and subscribed to as the
 * run is. The task id is the run's id; the context id is the first run of the conversation.
 */
import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from '@a2a-js/sdk';
import {
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { WatchItem } from '../contracts/watch-topics';
import {
  answersOf,
  answerArtifact,
  artifactUpdate,
  endedStatus,
  inputRequiredStatus,
  partsOf,
  statusOf,
  statusUpdate,
  taskOf,
  taskUpdate,
} from './a2a-tasks';
import type { GatewayContext } from './gateway-context';
import { GatewayError } from './run-bridge';
import type { Caller } from './run-start';

/** What the route puts in a call's context: the caller and the agents its key may run. */
export const CALLER_KEY = 'durable-agents.caller';
export interface CallerState {
  caller: Caller;
  may(agent: string): boolean;
}

/**
 * Where a stream of a run starts: its events after the one `skipThrough` accepts (an answer's
 * decision, a follow-up), its tokens after `tokensAfter` (those written once the message arrived).
 */
interface Follow {
  id: string;
  contextId: string;
  skipThrough?: (item: WatchItem) => boolean;
  tokensAfter?: number;
  tokens: boolean;
}

export class GatewayA2AHandler implements Partial<A2ARequestHandler> {
  constructor(
    private readonly ctx: GatewayContext,
    private readonly card: () => AgentCard,
  ) {}

  getAgentCard = async (): Promise<AgentCard> => this.card();

  private who(context: ServerCallContext): CallerState {
    return context.state.get(CALLER_KEY) as CallerState;
  }

  /** Runs `fn`, turning the gateway's refusals into the SDK's A2A errors. */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      if (err.kind === 'not_found') throw new TaskNotFoundError(err.message);
      throw new RequestMalformedError(err.message);
    }
  }

  /** Starts the run a message asks for, or answers or follows up on the task it names. */
  private async begin(params: SendMessageRequest, context: ServerCallContext): Promise<Follow> {
    const { caller, may } = this.who(context);
    const message = params.message;
    if (!message) throw new GatewayError('bad_request', 'the request has no message');
    const { text } = partsOf(message);
    if (message.taskId) {
      const id = message.taskId;
      const { running } = await this.ctx.runs.own(id, caller, may);
      if (!running)
        throw new GatewayError(
          'bad_request',
          `task "${id}" has ended: send a new message with referenceTaskIds [${id}] to go on`,
        );
      const contextId = await this.ctx.runs.conversationRoot(id);
      const waiting = await this.ctx.runs.inputs(id);
      const answers = answersOf(message, waiting);
      // The run waits, so no model call writes tokens: those after this cursor come after the message.
      const follow = { id, contextId, tokens: true, tokensAfter: await this.ctx.runs.feed.tokensNow(id) };
      if (answers.length > 0) {
        for (const answer of answers) await this.ctx.runs.answer(id, answer);
        const answered = new Set(answers.map((a) => a.toolCallId));
        return { ...follow, skipThrough: (i) => decides(i, answered) };
      }
      if (waiting.length > 0)
        throw new GatewayError('bad_request', `task "${id}" waits for: ${waiting.map((w) => w.toolCallId).join(', ')}`);
      const messageId = await this.ctx.runs.agents.followUp(id, text, message.messageId || undefined);
      const followedUp = (i: WatchItem) =>
        i.topic === 'events' && i.event.type === 'follow_up' && i.event.messageId === messageId;
      return { ...follow, skipThrough: followedUp };
    }
    const meta = { ...params.metadata, ...message.metadata } as { skill?: unknown };
    const names = Object.keys(this.ctx.runs.published);
    const skill = typeof meta.skill === 'string' ? meta.skill : names.length === 1 ? names[0] : undefined;
    if (!skill)
      throw new GatewayError(
        'bad_request',
        `name the skill to run in the message's metadata.skill: one of ${names.join(', ')}`,
      );
    this.ctx.runs.agent(skill);
    if (!may(skill)) throw new GatewayError('bad_request', `this key may not run skill "${skill}"`);
    if (!text.trim()) throw new GatewayError('bad_request', 'the message has no text');
    const previous = [...message.referenceTaskIds].reverse()[0] ?? (message.contextId || undefined);
    const continueFrom = previous && this.ctx.runs.agentOf(previous) ? previous : undefined;
    if (continueFrom) {
      const { running } = await this.ctx.runs.own(continueFrom, caller, may);
      if (running)
        throw new GatewayError('bad_request', `task "${continueFrom}" is still working: send the message to it`);
    }
    const id = await this.ctx.runs.start(skill, { task: text, caller, ...(continueFrom ? { continueFrom } : {}) });
    return { id, contextId: continueFrom ? await this.ctx.runs.conversationRoot(continueFrom) : id, tokens: true };
  }

  /** The run's updates: its text as the streamed `answer` artifact, then its end or what it waits for. */
  private async *follow(f: Follow): AsyncGenerator<StreamResponse, void, undefined> {
    yield statusUpdate(f.id, f.contextId, statusOf(TaskState.TASK_STATE_WORKING));
    let skipping = f.skipThrough !== undefined;
    let started = false;
    const at = f.tokensAfter === undefined ? undefined : { from: 0, tokensAfter: f.tokensAfter };
    for await (const item of this.ctx.runs.feed.follow(f.id, at)) {
      // Tokens after the cursor are the message's own, even when they come before the event skipped to.
      if (skipping && (item.topic === 'events' || f.tokensAfter === undefined)) {
        skipping = !f.skipThrough!(item);
        continue;
      }
      if (item.topic === 'tokens') {
        if (!f.tokens || item.delta.kind !== 'text' || !item.delta.text) continue;
        const artifact = { ...answerArtifact(item.delta.text), artifactId: `answer-${item.delta.seq}` };
        yield artifactUpdate(f.id, f.contextId, artifact, started, false);
        started = true;
        continue;
      }
      const inputs = await this.ctx.runs.inputsAfter(f.id, item);
      if (inputs.length > 0) {
        yield statusUpdate(f.id, f.contextId, inputRequiredStatus(f.id, f.contextId, inputs));
        return;
      }
      if (item.event.type === 'done') break;
    }
    yield* this.end(f.id, f.contextId);
  }

  private async *end(id: string, contextId: string): AsyncGenerator<StreamResponse, void, undefined> {
    const result = await this.ctx.runs.agents.result(id);
    yield artifactUpdate(id, contextId, answerArtifact(result.finalText), false, true);
    yield statusUpdate(id, contextId, endedStatus(id, contextId, result));
  }

  sendMessageStream = (
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> =>
    async function* (this: GatewayA2AHandler) {
      const f = await this.guard(() => this.begin(params, context));
      yield taskUpdate(taskOf(f.id, f.contextId, statusOf(TaskState.TASK_STATE_SUBMITTED)));
      yield* this.follow(f);
    }.call(this);

  sendMessage = async (params: SendMessageRequest, context: ServerCallContext): Promise<Task> => {
    const f = await this.guard(() => this.begin(params, context));
    if (params.configuration?.returnImmediately)
      return taskOf(f.id, f.contextId, statusOf(TaskState.TASK_STATE_SUBMITTED));
    let task = taskOf(f.id, f.contextId, statusOf(TaskState.TASK_STATE_WORKING));
    for await (const u of this.follow({ ...f, tokens: false })) {
      if (u.payload?.$case === 'statusUpdate') task = { ...task, status: u.payload.value.status };
      if (u.payload?.$case === 'artifactUpdate' && u.payload.value.lastChunk)
        task = { ...task, artifacts: [u.payload.value.artifact!] };
    }
    return task;
  };

  getTask = (params: GetTaskRequest, context: ServerCallContext): Promise<Task> =>
    this.guard(async () => {
      const { caller, may } = this.who(context);
      const { running } = await this.ctx.runs.own(params.id, caller, may);
      const contextId = await this.ctx.runs.conversationRoot(params.id);
      const inputs = running ? await this.ctx.runs.inputs(params.id) : [];
      if (inputs.length > 0) return taskOf(params.id, contextId, inputRequiredStatus(params.id, contextId, inputs));
      if (running) return taskOf(params.id, contextId, statusOf(TaskState.TASK_STATE_WORKING));
      const result = await this.ctx.runs.agents.result(params.id);
      return taskOf(params.id, contextId, endedStatus(params.id, contextId, result), [
        answerArtifact(result.finalText),
      ]);
    });

  cancelTask = (params: CancelTaskRequest, context: ServerCallContext): Promise<Task> =>
    this.guard(async () => {
      const { caller, may } = this.who(context);
      const { running } = await this.ctx.runs.own(params.id, caller, may);
      if (running) {
        await this.ctx.runs.cancel(params.id);
        await this.ctx.runs.agents.result(params.id);
      }
      return this.getTask({ tenant: '', id: params.id }, context);
    });

  resubscribe = (
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> =>
    async function* (this: GatewayA2AHandler) {
      const task = await this.getTask({ tenant: '', id: params.id }, context);
      yield taskUpdate(task);
      if (task.status?.state !== TaskState.TASK_STATE_WORKING) return;
      yield* this.follow({ id: task.id, contextId: task.contextId, tokens: false });
    }.call(this);

  getAuthenticatedExtendedAgentCard = async (): Promise<AgentCard> => this.card();
  listTasks = async (): Promise<never> => {
    throw new UnsupportedOperationError('listing tasks is not supported: read a task by its id');
  };
  createTaskPushNotificationConfig = unsupportedPush;
  getTaskPushNotificationConfig = unsupportedPush;
  listTaskPushNotificationConfigs = unsupportedPush;
  deleteTaskPushNotificationConfig = unsupportedPush;
}

async function unsupportedPush(): Promise<never> {
  throw new PushNotificationNotSupportedError('push notifications are not supported: stream or poll the task');
}

/** Whether an event decides one of the calls a message answered. */
function decides(item: WatchItem, calls: Set<string>): boolean {
  if (item.topic !== 'events') return false;
  const e = item.event;
  return (e.type === 'approval_decided' || e.type === 'client_tool_result') && calls.has(e.toolCallId);
}
