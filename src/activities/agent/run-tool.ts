/** Tool activities of the agent: pin the run's catalogue, run one call and store its result. */
import type { PinToolsInput, PinToolsOutput, RunToolInput, RunToolOutput } from '../../contracts/agent-activities';
import { toToolSpecs } from '../../policy/tool-selection';
import { type ToolActivities } from '../../contracts/tool-catalog';
import type { ResolvedModelInfo } from '../../contracts/model-info';
import { modelRefOf } from '../../policy/model-ref';
import type { ContentStore } from '../../store';
import { storeBody } from './append-messages';
import { currentWriteOrder, fromStore } from './conversation-view';
import type { ModelCaller } from './deps';

export function toolActivities(store: ContentStore, tools: ToolActivities, llm: Pick<ModelCaller, 'describe'>) {
  return {
    /**
     * The run's catalogue: tool specs go to the store (the model call reads them by hash), execution data to the
     * workflow; and what the worker's config says about each of the run's models.
     */
    async pinTools(input: PinToolsInput): Promise<PinToolsOutput> {
      const models = (input.models ?? []).flatMap((ref): ResolvedModelInfo[] => {
        const info = llm.describe(modelRefOf(ref));
        return info ? [info] : [];
      });
      const catalog = await tools.listTools(input.selection);
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
        ...(catalog.unavailableServers?.length ? { unavailableServers: catalog.unavailableServers } : {}),
        ...(models.length ? { models } : {}),
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
