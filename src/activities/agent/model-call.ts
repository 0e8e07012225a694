/** The model-call activity: reads the conversation by reference, calls the model, stores the answer. */
import { Context } from '@temporalio/activity';
import type { ModelCallInput, ModelCallOutput, StoredCallPrompt } from '../../contracts/agent-activities';
import { providerOf } from '../../policy/agent-state';
import { estimateBodyTokens } from '../../policy/token-estimate';
import type { ToolCallRequest } from '../../contracts/agent-run';
import {
  textOf,
  toolCallsOf,
  type AssistantMessage,
  type ModelRequest,
  type ToolSpec,
} from '../../contracts/message-model';
import { MessageAssembler } from '../../llm/message-assembler';
import type { AgentActivityDeps, ModelCaller } from './deps';
import { openTokenPublisher } from './token-publisher';
import { conversationOf, currentWriteOrder, fromStore, loadProviderView } from './conversation-view';

function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * Heartbeats while the stream delivers, so a stalled provider is noticed by the heartbeat timeout,
 * and publishes the output to the run's stream for watchers.
 */
async function streamWithHeartbeats(
  llm: ModelCaller,
  request: ModelRequest,
  seq: number,
  signal?: AbortSignal,
): Promise<AssistantMessage> {
  const assembler = new MessageAssembler();
  const tokens = openTokenPublisher({ seq, model: request.model });
  let events = 0;
  try {
    for await (const event of llm.stream(request, { signal })) {
      assembler.push(event);
      tokens.push(event);
      if (++events % 20 === 1) Context.current().heartbeat({ events });
    }
  } finally {
    await tokens.close();
  }
  return assembler.message();
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

/** The fields of a record of numbers that are not zero: what the output needs to carry. */
const withoutZeros = <T extends object>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== 0)) as Partial<T>;

export function modelCallActivity(deps: AgentActivityDeps) {
  return async function callModel(input: ModelCallInput): Promise<ModelCallOutput> {
    const { store, llm } = deps;
    const conversationId = conversationOf(input);
    const messages = await loadProviderView(
      store,
      conversationId,
      input.view,
      input.toSeq,
      providerOf(input.model),
      input.maskBefore,
    );
    if (input.recitation) messages.push({ role: 'user', content: input.recitation, timestamp: Date.now() });
    const promptHash = input.promptHash;
    const stored = promptHash ? await fromStore(() => store.get<StoredCallPrompt>(promptHash)) : undefined;
    const specsHash = input.toolSpecsHash ?? stored?.toolSpecsHash;
    const tools = specsHash ? await fromStore(() => store.get<ToolSpec[]>(specsHash)) : undefined;
    const responseFormat = stored?.responseFormat ?? input.responseFormat;
    const request: ModelRequest = {
      model: input.model,
      systemPrompt: stored?.systemPrompt ?? input.systemPrompt,
      messages,
      options: {
        ...(input.maxTokens === undefined ? {} : { maxTokens: input.maxTokens }),
        ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
        ...(tools && tools.length > 0 ? { tools } : {}),
        ...(responseFormat ? { responseFormat } : {}),
        ...(input.toolChoice && tools && tools.length > 0 ? { toolChoice: input.toolChoice } : {}),
      },
    };
    const signal = activitySignal();
    const message = input.stream
      ? await streamWithHeartbeats(llm, request, input.writeSeq, signal)
      : await llm.complete(request, { signal });
    const hash = await fromStore(() => store.put(message, conversationId));
    const order = currentWriteOrder();
    await fromStore(() =>
      store.writeEntries(conversationId, [{ seq: input.writeSeq, kind: 'assistant', hash }], order),
    );
    const toolCalls = toolCallRequests(message);
    return {
      meta: { seq: input.writeSeq, kind: 'assistant', hash, tokens: estimateBodyTokens(message) },
      stopReason: message.stopReason,
      usage: withoutZeros(message.usage),
      cost: withoutZeros(message.cost),
      toolCalls,
      ...(toolCalls.length > 0 ? {} : { text: textOf(message) }),
      ...(message.errorMessage ? { errorMessage: message.errorMessage } : {}),
    };
  };
}
