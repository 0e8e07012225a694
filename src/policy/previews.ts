/**
 * Short, one-line previews of what a run's events show: a tool call's arguments, its result, the
 * model's thought. Events live in workflow state and history, so they carry previews; whole
 * bodies stay in the content store, named by hash.
 */
import { canonicalJson } from '../common/canonical-json';

/** Characters a preview of arguments or an error keeps. */
const PREVIEW_CHARS = 200;
/**
 * Characters a tool result's preview keeps. Shorter: it travels in the tool activity's result, so
 * every call adds it to the run's history (the stored result stays whole).
 */
export const RESULT_PREVIEW_CHARS = 120;
/** Characters a preview of the model's thought keeps (`trace`, from the stored answer): as many as an argument's. */
export const THOUGHT_PREVIEW_CHARS = PREVIEW_CHARS;

/** `text` on one line (runs of whitespace as one space), cut at `max` characters with an ellipsis. */
export function previewText(text: string, max = PREVIEW_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * What the model thought, previewed: its thinking, else the text it wrote beside its tool calls
 * (an answer's text without tool calls is the answer, not a thought). Undefined when there is none.
 */
export function thoughtPreview(thinking: string, text: string, calledTools: boolean): string | undefined {
  const thought = thinking.trim() || (calledTools ? text.trim() : '');
  return thought ? previewText(thought, THOUGHT_PREVIEW_CHARS) : undefined;
}

/** A tool call's arguments as canonical JSON, previewed. */
export const argsPreview = (args: Record<string, unknown>, max = PREVIEW_CHARS): string =>
  previewText(canonicalJson(args), max);
