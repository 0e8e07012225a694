/** Tool activities of the agent: pin the run's catalogue, run one call and store its result. */
import { ApplicationFailure } from '@temporalio/activity';
import type { PinToolsInput, PinToolsOutput, RunToolInput, RunToolOutput } from '../../contracts/agent-activities';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { toToolSpecs } from '../../policy/tool-selection';
import { type ToolActivities, type ToolCatalog } from '../../contracts/tool-catalog';
import type { ContentStore } from '../../store';
import { storeBody } from './append-messages';
import { currentWriteOrder, fromStore } from './conversation-view';

/**
 * The failure of a catalogue with servers that did not answer, naming each with its reason:
 * retryable while one of them might still come up, not when none can (a command not found).
 */
function unavailableFailure(down: NonNullable<ToolCatalog['unavailableServers']>): ApplicationFailure {
  const retryable = down.some((server) => server.retryable !== false);
  // The pool's messages name their server already.
  const reasons = down.map(({ name, error }) =>
    error.includes(`"${name}"`) ? error : `MCP server "${name}": ${error}`,
  );
  return ApplicationFailure.create({
    message: reasons.join('; '),
    type: retryable ? AGENT_FAILURE.mcpConnection : AGENT_FAILURE.mcpConfig,
    nonRetryable: !retryable,
  });
}

export function toolActivities(store: ContentStore, tools: ToolActivities) {
  return {
    /**
     * The run's catalogue: tool specs go to the store (the model call reads them by hash), execution data to the
     * workflow. A configured MCP server that does not answer fails the activity (retried while it may come up).
     */
    async pinTools(input: PinToolsInput): Promise<PinToolsOutput> {
      const catalog = await tools.listTools(input.selection);
      if (catalog.unavailableServers?.length) throw unavailableFailure(catalog.unavailableServers);
      const specs = toToolSpecs(catalog);
      const toolSpecsHash =
        specs.length > 0 ? await fromStore(() => store.put(specs, input.conversationId)) : undefined;
      return {
        tools: catalog.tools.map(({ name, mode, timeoutMs, retry, sideEffects, fingerprint }) => ({
          name,
          mode,
          timeoutMs,
          retry,
          sideEffects,
          fingerprint,
        })),
        ...(toolSpecsHash ? { toolSpecsHash } : {}),
      };
    },

    /** Runs one server tool call; the result enters the conversation log here, not through history. */
    async runTool(input: RunToolInput): Promise<RunToolOutput> {
      const output = await tools.executeTool({
        runId: input.runId,
        toolCallId: input.toolCallId,
        name: input.name,
        args: input.args,
        fingerprint: input.fingerprint,
        selection: input.selection,
        ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
      });
      const text = input.note ? `${input.note}\n\n${output.content}` : output.content;
      const { meta, entry } = await storeBody(store, input.conversationId, input.seq, 'tool_result', {
        role: 'tool_result',
        toolCallId: input.toolCallId,
        toolName: input.name,
        content: [{ type: 'text', text }],
        isError: output.isError,
        timestamp: Date.now(),
      });
      const order = currentWriteOrder();
      await fromStore(() => store.writeEntries(input.conversationId, [entry], order));
      return { meta, isError: output.isError, durationMs: output.durationMs };
    },
  };
}
