/** Tool activities of the agent: pin the run's catalogue, run one call and store its result. */
import { ApplicationFailure } from '@temporalio/activity';
import type { RunToolInput, ResultFit, RunToolOutput, StoredCallPrompt } from '../../contracts/agent-activities';
import type { PinToolsInput, PinToolsOutput } from '../../contracts/tool-pin';
import { isToolAllowed, matchesToolPattern, toToolSpecs } from '../../policy/tool-selection';
import { planToolEntry } from '../../tools/plan-tool';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import {
  type ExecuteToolOutput,
  type ToolActivities,
  type ToolCatalog,
  type ToolCatalogEntry,
  type ToolSelection,
} from '../../contracts/tool-catalog';
import { runClientToolEntry } from '../../tools/client-tools';
import { subAgentEntry } from '../../tools/sub-agent-tools';
import { modelRefOf } from '../../policy/model-ref';
import type { ContentStore } from '../../store';
import { storeBody } from './append-messages';
import { conversationOf, fromStore, writeLogged } from './conversation-view';
import type { ModelCaller } from './deps';
import { readBack, readBackEntry } from './read-back';
import { RESULT_PREVIEW_CHARS, previewText } from '../../policy/previews';
import type { WholeResult } from '../../contracts/stored-body';
import { READ_RESULT_TOOL } from '../../policy/masking';
import { observeToolCall } from '../call-telemetry';

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

/** Fails the run when one of its own `what`s is named like a tool of `listed` (which one it meant is unknowable). */
function refuseClash(what: string, declared: readonly { name: string }[], listed: readonly ToolCatalogEntry[]): void {
  const clash = declared.find((d) => listed.some((t) => t.name === d.name));
  if (clash) {
    throw ApplicationFailure.create({
      message:
        `The run declares the ${what} "${clash.name}", but this worker has a tool of that name: ` +
        `give the ${what} another name`,
      type: AGENT_FAILURE.clientToolClash,
      nonRetryable: true,
    });
  }
}

/** Names of the worker's tools shown in the refusal of an unknown one. */
const SHOWN_TOOL_NAMES = 20;

/**
 * Allowed names that no offered tool has: a run that allows a tool by its exact name the worker
 * does not have fails (a typo would otherwise leave the model without the tool, in silence).
 * Patterns (`fs_*`) may match nothing; a denied name is not offered anyway.
 */
function unknownAllowedTools(selection: ToolSelection, offered: readonly ToolCatalogEntry[]): string[] {
  return (selection.allow ?? []).filter(
    (name) => !name.endsWith('*') && !matchesToolPattern(name, selection.deny) && !offered.some((t) => t.name === name),
  );
}

/**
 * Tools the run's sub-agents ask for by name that the run does not offer: the worker lacks them
 * (a name outside what the run may use is refused before the run starts).
 */
function unknownSubAgentTools(agents: PinToolsInput['agents'], offered: readonly ToolCatalogEntry[]): string[] {
  return (agents ?? []).flatMap((agent) =>
    (agent.tools ?? [])
      .filter((name) => !name.endsWith('*') && !offered.some((t) => t.name === name))
      .map((name) => `"${name}" (for its sub-agent "${agent.name}")`),
  );
}

/** The failure for allowed tools the worker lacks (quoted, with where they come from), naming the tools it has. */
function unknownToolFailure(unknown: readonly string[], workerTools: readonly ToolCatalogEntry[]): ApplicationFailure {
  const names = workerTools.map((t) => t.name).sort();
  const shown = names.length > SHOWN_TOOL_NAMES ? [...names.slice(0, SHOWN_TOOL_NAMES), '…'] : names;
  return ApplicationFailure.create({
    message:
      `The run allows ${unknown.join(', ')}, but this worker has no tool of that name ` +
      `(its tools: ${shown.join(', ') || 'none'}): fix the tool names`,
    type: AGENT_FAILURE.unknownTool,
    nonRetryable: true,
  });
}

/** The note after a result cut to `shown` of `chars` characters. */
function cutNote(toolCallId: string, shown: number, chars: number, readBack: boolean): string {
  const rest = readBack
    ? `Read on with ${READ_RESULT_TOOL} (tool_call_id "${toolCallId}", offset ${shown}).`
    : 'The rest is kept in the conversation store and not shown.';
  return `\n\n[Cut to fit the model's context window: the first ${shown} of ${chars} characters. ${rest}]`;
}

/**
 * A result as the conversation holds it: whole when it fits, else cut to `fit.maxChars` with a
 * note, and the whole text stored beside it for reading back.
 */
async function fitResult(
  store: ContentStore,
  conversationId: string,
  toolCallId: string,
  text: string,
  fit: ResultFit | undefined,
): Promise<{ text: string; whole?: WholeResult }> {
  if (!fit || text.length <= fit.maxChars) return { text };
  const longest = cutNote(toolCallId, fit.maxChars, text.length, fit.readBack).length;
  const shown = Math.max(0, fit.maxChars - longest);
  const hash = await fromStore(() => store.put(text, conversationId));
  return {
    text: text.slice(0, shown) + cutNote(toolCallId, shown, text.length, fit.readBack),
    whole: { hash, chars: text.length, shown },
  };
}

/**
 * The workflow's own tools a run is offered (reading a masked result back, updating its plan): each
 * when the run asks for it, its selection lets it through and no tool of the worker has its name.
 */
function builtinsOf(
  input: PinToolsInput,
  listed: readonly ToolCatalogEntry[],
  wanted: [ToolCatalogEntry, boolean][],
): ToolCatalogEntry[] {
  return wanted.flatMap(([entry, asked]) =>
    asked && isToolAllowed(entry.name, input.selection) && !listed.some((t) => t.name === entry.name) ? [entry] : [],
  );
}

export function toolActivities(
  store: ContentStore,
  tools: ToolActivities,
  llm: Pick<ModelCaller, 'describe'>,
  captureContent = false,
) {
  return {
    /**
     * The run's catalogue: tool specs, the system prompt and the selection go to the store (the
     * model and tool calls read them by hash), execution data to the workflow; and what the
     * worker's config says about each of the run's models. A configured MCP server that does not
     * answer fails the activity (retried while it may come up).
     */
    async pinTools(input: PinToolsInput): Promise<PinToolsOutput> {
      const models = (input.models ?? [])
        .map((ref) => llm.describe(modelRefOf(ref)))
        .filter((info) => info !== undefined);
      const catalog = await tools.listTools(input.selection);
      if (catalog.unavailableServers?.length) throw unavailableFailure(catalog.unavailableServers);
      // The run's client tools and sub-agents, each named unlike the tools before it.
      const clientTools = input.selection.clientTools ?? [];
      refuseClash('client tool', clientTools, catalog.tools);
      const declared = [...catalog.tools, ...clientTools.map(runClientToolEntry)];
      const agents = input.agents ?? [];
      refuseClash('sub-agent', agents, declared);
      const listed = [...declared, ...agents.map(subAgentEntry)];
      const entries = [
        ...listed,
        ...builtinsOf(input, listed, [
          [readBackEntry, input.readBack === true],
          [planToolEntry, input.planTool === true],
        ]),
      ];
      const unknown = [
        ...unknownAllowedTools(input.selection, entries).map((n) => `"${n}"`),
        ...unknownSubAgentTools(input.agents, entries),
      ];
      if (unknown.length > 0) {
        const all = await tools.listTools({ ...input.selection, allow: undefined });
        throw unknownToolFailure(unknown, all.tools);
      }
      const specs = toToolSpecs({ tools: entries });
      const put = (body: unknown): Promise<string> => fromStore(() => store.put(body, input.conversationId));
      const [toolSpecsHash, selectionHash] = await Promise.all([
        specs.length > 0 ? put(specs) : undefined,
        put(input.selection),
      ]);
      // The run's own prompt names its tools too, so a call with it carries one hash.
      const prompt: StoredCallPrompt | undefined =
        input.systemPrompt !== undefined
          ? { systemPrompt: input.systemPrompt, ...(toolSpecsHash ? { toolSpecsHash } : {}) }
          : undefined;
      const promptHash = prompt ? await put(prompt) : undefined;
      return {
        tools: entries.map(({ name, mode, timeoutMs, retry, sideEffects, fingerprint, local, dedupe }) => ({
          name,
          mode,
          timeoutMs,
          retry,
          sideEffects,
          fingerprint,
          ...(local ? { local } : {}),
          ...(dedupe === false ? { dedupe } : {}),
        })),
        ...(toolSpecsHash ? { toolSpecsHash } : {}),
        ...(promptHash ? { promptHash } : {}),
        selectionHash,
        ...(models.length ? { models } : {}),
      };
    },

    /** Runs one server tool call; the result enters the conversation log here, not through history. */
    async runTool(input: RunToolInput): Promise<RunToolOutput> {
      const started = Date.now();
      const conversationId = conversationOf(input);
      // The run's selection, read by the hash `pinTools` wrote it under; none before the tools were pinned.
      const { selectionHash } = input;
      const call = { name: input.name, toolCallId: input.toolCallId, args: input.args, captureContent };
      const output = await observeToolCall<ExecuteToolOutput>(call, async () =>
        input.name === readBackEntry.name && input.fingerprint === readBackEntry.fingerprint
          ? {
              ...(await readBack(store, conversationId, input.seq, input.args)),
              durationMs: Date.now() - started,
            }
          : tools.executeTool({
              runId: input.runId,
              toolCallId: input.toolCallId,
              name: input.name,
              args: input.args,
              fingerprint: input.fingerprint,
              selection: selectionHash ? await fromStore(() => store.get<ToolSelection>(selectionHash)) : {},
              ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
            }),
      );
      const noted = input.note ? `${input.note}\n\n${output.content}` : output.content;
      const { text, whole } = await fitResult(store, conversationId, input.toolCallId, noted, input.fit);
      const { meta, entry } = await storeBody(store, conversationId, input.seq, 'tool_result', {
        role: 'tool_result',
        toolCallId: input.toolCallId,
        toolName: input.name,
        content: [{ type: 'text', text }],
        isError: output.isError,
        timestamp: Date.now(),
        ...(whole ? { whole } : {}),
      });
      await writeLogged(store, conversationId, [entry]);
      const logHash = output.log
        ? await fromStore(() =>
            store.put(
              { role: 'tool_log', text: output.log, toolCallId: input.toolCallId, timestamp: Date.now() },
              conversationId,
            ),
          )
        : undefined;
      return {
        hash: meta.hash,
        tokens: meta.tokens,
        isError: output.isError,
        durationMs: output.durationMs,
        preview: previewText(output.content, RESULT_PREVIEW_CHARS),
        ...(logHash ? { logHash } : {}),
      };
    },
  };
}
