/**
 * The built-in tool that reads a masked tool result back (docs/design.md, Masking). The provider
 * view shows an old result as a stub naming its tool-call id; this tool finds that result in the
 * run's conversation log and returns it whole. It is offered to runs that mask results, and the
 * run's tool selection (allow/deny) applies to it like to any other tool.
 */
import { z } from 'zod';
import { LOCAL_TOOL_MAX_TIMEOUT_MS, type ToolCatalogEntry } from '../../contracts/tool-catalog';
import type { StoredBody } from '../../contracts/stored-body';
import { textOf } from '../../contracts/message-model';
import { READ_RESULT_TOOL } from '../../policy/masking';
import { catalogEntry } from '../../tools/fingerprint';
import type { ContentStore } from '../../store';
import { fromStore } from './conversation-view';

const parameters = z.strictObject({
  tool_call_id: z.string().min(1).max(200).describe('The id a shortened result names ("tool_call_id")'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('For a result cut to fit the context: the character to read on from, as its note says'),
});

const description =
  'Read again an earlier tool result that the conversation shows shortened: whole, or, for a result cut to ' +
  'fit the context, a page from the offset its note gives. Give the tool_call_id the shortened result names.';

const schema = z.toJSONSchema(parameters, { io: 'input' }) as Record<string, unknown>;
delete schema.$schema;

/** The tool's catalogue entry: read-only and quick, so it runs as a local activity. */
export const readBackEntry: ToolCatalogEntry = catalogEntry({
  name: READ_RESULT_TOOL,
  description,
  parameters: schema,
  mode: 'server',
  timeoutMs: LOCAL_TOOL_MAX_TIMEOUT_MS,
  local: true,
  maxOutputChars: Number.MAX_SAFE_INTEGER,
  source: 'builtin',
});

/** Log entries read per step while looking back for a result. */
const PAGE = 64;

/**
 * Runs one call of the tool: the result of `tool_call_id` among the log entries before `beforeSeq`,
 * newest first. An unknown id or bad arguments give an error result the model can read.
 */
export async function readBack(
  store: ContentStore,
  conversationId: string,
  beforeSeq: number,
  args: unknown,
): Promise<{ content: string; isError: boolean }> {
  const parsed = parameters.safeParse(args);
  if (!parsed.success)
    return { content: `Tool "${READ_RESULT_TOOL}": give the tool_call_id of a shortened result.`, isError: true };
  const id = parsed.data.tool_call_id;
  for (let to = beforeSeq; to > 0; to -= PAGE) {
    const from = Math.max(0, to - PAGE);
    const entries = (await fromStore(() => store.readEntries(conversationId, from, to))).filter(
      (e) => e.kind === 'tool_result',
    );
    const bodies = await fromStore(() => store.getMany<StoredBody>(entries.map((e) => e.hash)));
    const found = [...bodies].reverse().find((b) => b.role === 'tool_result' && b.toolCallId === id);
    if (found && found.role === 'tool_result')
      return { content: await page(store, found, parsed.data.offset), isError: false };
  }
  return { content: `No tool result with tool_call_id "${id}" in this conversation.`, isError: true };
}

/**
 * What a read back returns: a masked result whole; a result cut to fit the context a page at a
 * time (as long as the cut result showed), from `offset`, with a note on where the next page starts.
 */
async function page(
  store: ContentStore,
  found: Extract<StoredBody, { role: 'tool_result' }>,
  offset = 0,
): Promise<string> {
  if (!found.whole) return textOf(found).slice(offset);
  const { hash, chars, shown } = found.whole;
  const text = await fromStore(() => store.get<string>(hash));
  const end = Math.min(chars, offset + Math.max(1, shown));
  const more = end < chars ? `\n\n[Characters ${offset} to ${end} of ${chars}. Read on with offset ${end}.]` : '';
  return `${text.slice(offset, end)}${more}`;
}
