/** The summariser: folds the older part of a conversation into one summary, with a (cheaper) model. */
import type { SummariseInput, SummariseOutput } from '../../contracts/agent-activities';
import type { LoggedBody } from '../../contracts/stored-body';
import { estimateBodyTokens } from '../../policy/token-estimate';
import { textOf, type ModelRequest } from '../../contracts/message-model';
import { modelRefOf } from '../../policy/model-ref';
import { activityContext } from '../heartbeat';
import { observeModelCall } from '../call-telemetry';
import type { AgentActivityDeps } from './deps';
import { currentWriteOrder, fromStore, readLogged, readSummary } from './conversation-view';

const SUMMARY_SYSTEM_PROMPT =
  'You compress conversations between a user and an AI agent that uses tools. Write a faithful summary that ' +
  'lets the agent ' +
  'continue the task: the goal, decisions made, facts learned from tool results (with exact names, paths, numbers), ' +
  'what failed and why, and what remains to do. No preamble.';

/** Tool results longer than this are cut in the transcript the summariser reads. */
const MAX_RESULT_CHARS = 4_000;

/** Renders logged messages as a plain transcript (tool calls as text, so no provider pairing rules apply). */
function transcriptOf(logged: readonly LoggedBody[]): string {
  const lines: string[] = [];
  for (const { body } of logged) {
    if (body.role === 'user') lines.push(`USER: ${textOf(body)}`);
    else if (body.role === 'assistant') {
      const text = textOf(body);
      if (text) lines.push(`ASSISTANT: ${text}`);
      for (const block of body.content) {
        if (block.type === 'tool_call')
          lines.push(`ASSISTANT called ${block.name}(${JSON.stringify(block.arguments)}) [${block.id}]`);
      }
    } else if (body.role === 'tool_result') {
      const text = textOf(body);
      const cut = text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)} …[cut]` : text;
      lines.push(`TOOL ${body.toolName} [${body.toolCallId}]${body.isError ? ' ERROR' : ''}: ${cut}`);
    } else if (body.role === 'summary') lines.push(`EARLIER SUMMARY: ${body.text}`);
  }
  return lines.join('\n');
}

export function summariseActivity(deps: AgentActivityDeps) {
  return async function summariseConversation(input: SummariseInput): Promise<SummariseOutput> {
    const [logged, previous] = await Promise.all([
      readLogged(deps.store, input.conversationId, input.view.fromSeq, input.toSeq, { settledBelowTo: true }),
      readSummary(deps.store, input.conversationId, input.view),
    ]);
    const model = modelRefOf(input.model);
    const request: ModelRequest = {
      model,
      systemPrompt: SUMMARY_SYSTEM_PROMPT,
      messages: [
        {
          role: 'user',
          content:
            `${previous ? `Summary so far:\n${previous.text}\n\n` : ''}Conversation to fold into the ` +
            `summary:\n${transcriptOf(logged)}`,
          timestamp: Date.now(),
        },
      ],
    };
    const answer = await observeModelCall({ request, captureContent: deps.captureContent }, () =>
      deps.llm.complete(request, { signal: activityContext()?.cancellationSignal }),
    );
    const body = { role: 'summary' as const, text: textOf(answer), timestamp: Date.now() };
    const summaryHash = await fromStore(() => deps.store.put(body, input.conversationId));
    // Recorded against the conversation, so a transcript can place it where it replaced the log.
    await fromStore(() =>
      deps.store.recordSummary(
        input.conversationId,
        { fromSeq: input.view.fromSeq, toSeq: input.toSeq, hash: summaryHash },
        currentWriteOrder(),
      ),
    );
    return {
      summaryHash,
      summaryTokens: estimateBodyTokens(body),
      usage: answer.usage,
      cost: answer.cost,
      model,
    };
  };
}
