/**
 * Text as the Temporal Web UI renders it: its Markdown (summaries' details, current details) reads
 * `$…$` as math, so prose escapes dollar signs, and code keeps any text whole.
 */

/** `text` as literal prose: its backslashes and dollar signs escaped, so no pair of amounts becomes math. */
export const markdownText = (text: string): string => text.replace(/[\\$]/g, '\\$&');

/** A fenced block that no backtick run inside `text` can close. */
export function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** Inline code that no backtick inside `text` can close. */
export function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}
