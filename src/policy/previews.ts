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

/** `text` cut to `max` characters with an ellipsis. */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** `text` on one line (runs of whitespace as one space), cut at `max` characters with an ellipsis. */
export function previewText(text: string, max = PREVIEW_CHARS): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}

/**
 * What the model thought, previewed as an argument is (`trace`, from the stored answer): its thinking,
 * else the text it wrote beside its tool calls (an answer's text without tool calls is the answer,
 * not a thought). Undefined when there is none.
 */
export function thoughtPreview(thinking: string, text: string, calledTools: boolean): string | undefined {
  const thought = thinking.trim() || (calledTools ? text.trim() : '');
  return thought ? previewText(thought) : undefined;
}

/** A tool call's arguments as canonical JSON, previewed. */
export const argsPreview = (args: Record<string, unknown>): string => previewText(canonicalJson(args));
