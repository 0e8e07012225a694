/** The model-call activity: reads the conversation by reference, calls the model, stores the answer. */
import type { ModelCallInput, ModelCallOutput, StoredCallPrompt } from '../../contracts/agent-activities';
import { modelLabel } from '../../contracts/model-ref';
import { modelRefOf } from '../../policy/model-ref';
import { estimateBodyTokens } from '../../policy/token-estimate';
import { wholeLog, type ToolCallRequest } from '../../contracts/agent-run';
import {
  compactCost,
  withoutZeros,
  textOf,
  toolCallsOf,
  type AssistantMessage,
  type Message,
  type ModelRequest,
  type ToolSpec,
} from '../../contracts/message-model';
import type { StreamEvent } from '../../contracts/stream-events';
import { MessageAssembler } from '../../llm/message-assembler';
import type { AgentActivityDeps } from './deps';
import { activityContext } from '../heartbeat';
import { observeModelCall } from '../call-telemetry';
import { openTokenWriter, tokenAppender, type TokenWriter } from './token-writer';
import { conversationOf, currentWriteOrder, fromStore, loadProviderView, writeLogged } from './conversation-view';
import { runInlineTools, type PublishToolEvent, type RunTool } from './inline-tools';
import type { StreamCall } from '../../contracts/token-stream';
import type { RunApprovals } from '../../policy/approval-rules';
import type { ToolSelection } from '../../contracts/tool-catalog';
import type { ContentStore } from '../../store';

/**
 * The call's answer, assembled from the provider's stream (every call streams, so a hung
 * provider is detected by the LLM layer's idle timeout); `tokens` writes it for watchers.
 */
async function assemble(
  events: AsyncIterable<StreamEvent>,
  tokens: TokenWriter | undefined,
  firstToken: () => void,
): Promise<AssistantMessage> {
  const assembler = new MessageAssembler();
  for await (const event of events) {
    if (event.type.endsWith('_delta')) firstToken();
    assembler.push(event);
    tokens?.push(event);
  }
  return assembler.message();
}

/** The run whose token stream the call writes, and the call as its records name it (answer's position, attempt). */
function streamOf(input: ModelCallInput): { runId: string; call: StreamCall } {
  const runId = activityContext()?.info.workflowExecution?.workflowId ?? conversationOf(input);
  const order = currentWriteOrder() ?? { scheduledAt: Date.now(), attempt: 1 };
  return { runId, call: { seq: input.writeSeq, ...order, model: modelLabel(modelRefOf(input.model)) } };
}

function tokenWriter(deps: AgentActivityDeps, input: ModelCallInput): TokenWriter | undefined {
  if (!input.stream) return undefined;
  const { runId, call } = streamOf(input);
  const after = input.stream === true ? undefined : input.stream.after;
  return openTokenWriter(deps.store, runId, call, { after, interval: deps.tokenBatchMs, secrets: deps.secrets });
}

/** Writes the events of the quick calls the model call runs to the run's token stream; best effort, like tokens. */
function toolPublisher(deps: AgentActivityDeps, input: ModelCallInput): PublishToolEvent {
  const { runId, call } = streamOf(input);
  const warning = 'token stream write failed; the watchers see the quick tool calls later';
  const append = tokenAppender(deps.store, runId, warning);
  return (event) => append([{ ...call, type: 'tool', event, at: Date.now() }]);
}

/** Tool calls as the workflow receives them; calls cut off by the output limit are marked, never run. */
function toolCallRequests(message: AssistantMessage): ToolCallRequest[] {
  return toolCallsOf(message).map((call) => {
    const malformed = call.malformed
      ? `the arguments were not valid JSON (${call.malformed.reason})`
      : message.stopReason === 'length'
        ? 'the answer was cut off by the output token limit, so the arguments may be incomplete'
        : undefined;
    return { id: call.id, name: call.name, arguments: call.arguments, ...(malformed ? { malformed } : {}) };
  });
}

/** The request of a call: its conversation, prompt and tool specs read from the store by reference. */
async function requestOf(deps: AgentActivityDeps, input: ModelCallInput): Promise<ModelRequest> {
  const { store, llm } = deps;
  const model = modelRefOf(input.model);
  const { messagesHash, promptHash } = input;
  const messages = messagesHash
    ? [...(await fromStore(() => store.get<Message[]>(messagesHash)))]
    : await loadProviderView(
        store,
        conversationOf(input),
        input.view ?? wholeLog(),
        input.toSeq,
        model.provider,
        input.maskBefore,
      );
  if (input.recitation) messages.push({ role: 'user', content: input.recitation, timestamp: Date.now() });
  const stored = promptHash ? await fromStore(() => store.get<StoredCallPrompt>(promptHash)) : undefined;
  const specsHash = input.toolSpecsHash ?? stored?.toolSpecsHash;
  // A model whose entry says it takes no tools is called without them (a run that names tools was refused).
  const takesTools = llm.describe(model)?.capabilities.tools !== false;
  const tools = specsHash && takesTools ? await fromStore(() => store.get<ToolSpec[]>(specsHash)) : undefined;
  // The call's settings, carried whole; a stored prompt's output format wins.
  const { responseFormat, toolChoice, stopSequences, ...settings } = {
    ...input.settings,
    ...(stored?.responseFormat ? { responseFormat: stored.responseFormat } : {}),
  };
  return {
    model,
    systemPrompt: stored?.systemPrompt ?? input.systemPrompt,
    messages,
    options: {
      ...settings,
      ...(stopSequences?.length ? { stopSequences } : {}),
      ...(tools && tools.length > 0 ? { tools } : {}),
      ...(responseFormat ? { responseFormat } : {}),
      ...(toolChoice && tools && tools.length > 0 ? { toolChoice } : {}),
    },
  };
}

/** The approval rules of a run, from its tool selection as pinning stored it. */
async function approvalsOf(store: ContentStore, selectionHash: string | undefined): Promise<RunApprovals> {
  if (!selectionHash) return {};
  const { approve, approvals } = await fromStore(() => store.get<ToolSelection>(selectionHash));
  return { approve, rules: approvals };
}

/** The model-call activity; `runTool` runs the quick calls the workflow hands over (`inlineTools`). */
export function modelCallActivity(deps: AgentActivityDeps, runTool: RunTool) {
  return async function callModel(input: ModelCallInput): Promise<ModelCallOutput> {
    const { store, llm } = deps;
    // The stream opens first, so a watcher sees the call begin while its conversation is read.
    const tokens = tokenWriter(deps, input);
    const conversationId = conversationOf(input);
    let message: AssistantMessage;
    try {
      const request = await requestOf(deps, input);
      const signal = activityContext()?.cancellationSignal;
      message = await observeModelCall({ request, captureContent: deps.captureContent }, (firstToken) =>
        assemble(llm.stream(request, { signal }), tokens, firstToken),
      );
    } catch (err) {
      await tokens?.close('failed');
      throw err;
    }
    const closing = tokens?.close('answered');
    const body = input.agentRole ? { ...message, agentRole: input.agentRole } : message;
    const hash = await fromStore(() => store.put(body, conversationId));
    await writeLogged(store, conversationId, [{ seq: input.writeSeq, kind: 'assistant', hash }]);
    await closing;
    const toolCalls = toolCallRequests(message);
    const toolResults = input.inlineTools
      ? await runInlineTools(
          input.inlineTools,
          toolCalls,
          { conversationId: input.conversationId, firstSeq: input.writeSeq + 1 },
          { runTool, publish: toolPublisher(deps, input) },
          await approvalsOf(store, input.inlineTools.selectionHash),
        )
      : undefined;
    const modelInfo = input.describeModel ? llm.describe(modelRefOf(input.model)) : undefined;
    return {
      meta: { seq: input.writeSeq, hash, tokens: estimateBodyTokens(message) },
      ...(message.stopReason === 'tool_use' ? {} : { stopReason: message.stopReason }),
      usage: withoutZeros(message.usage),
      cost: compactCost(message.cost),
      toolCalls,
      ...(toolCalls.length > 0 ? {} : { text: textOf(message) }),
      ...(message.errorMessage ? { errorMessage: message.errorMessage } : {}),
      ...(modelInfo ? { modelInfo } : {}),
      ...(toolResults
        ? { toolResults: toolResults.map(({ isError, ...r }) => (isError ? { ...r, isError } : r)) }
        : {}),
    };
  };
}
