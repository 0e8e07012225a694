/**
 * A structured answer (a role's todos, summary or verdict; a JSON answer) rendered as fields
 * that fill in while it streams, from the values the client's watch gives (`answers: true`). Lines
 * only ever grow at the end: finished lines are printed once, and only the last field's text streams.
 */

/** A rendered piece of the answer; `streams` when it is text that may still grow at its end. */
interface Block {
  text: string;
  streams: boolean;
}

const LABELS: Record<string, string> = {
  needsMorePlanning: 'more planning needed',
  taskCompleted: 'task completed',
  shouldContinue: 'should continue',
  nextAction: 'next action',
  allCompleted: 'all completed',
  userNeedsSatisfied: "user's needs satisfied",
  overallFeedback: 'feedback',
};
const label = (key: string): string => LABELS[key] ?? key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

const STATUS_MARK: Record<string, string> = { completed: '[x]', failed: '[!]', skipped: '[-]', executing: '[>]' };

function itemLine(item: unknown): string {
  if (typeof item !== 'object' || item === null) return String(item);
  const o = item as Record<string, unknown>;
  if (typeof o.description === 'string')
    return `${STATUS_MARK[String(o.status)] ?? '[ ]'} ${String(o.id ?? '?')}: ${o.description}`;
  if (typeof o.completed === 'boolean')
    return `${o.completed ? '[x]' : '[ ]'} ${String(o.id ?? '?')}${o.feedback ? `: ${String(o.feedback)}` : ''}`;
  return JSON.stringify(item);
}

const indent = (text: string, by: string): string => text.replace(/\n/g, `\n${by}`);

/** The answer's fields as blocks, in the order the JSON gives them. */
function blocksOf(value: Record<string, unknown>): Block[] {
  const blocks: Block[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (key === 'type' || key === 'component') continue;
    if (typeof v === 'string') blocks.push({ text: `  ${label(key)}: ${indent(v, '    ')}`, streams: true });
    else if (typeof v === 'boolean') blocks.push({ text: `  ${label(key)}: ${v ? 'yes' : 'no'}`, streams: false });
    else if (Array.isArray(v)) {
      // An empty list shows nothing: its label comes with its first item (only the last field still grows).
      if (v.length === 0) continue;
      blocks.push({ text: `  ${label(key)}:`, streams: false });
      for (const item of v)
        blocks.push(
          typeof item === 'string'
            ? { text: `    - ${indent(item, '      ')}`, streams: true }
            : { text: `    ${itemLine(item)}`, streams: false },
        );
    } else blocks.push({ text: `  ${label(key)}: ${JSON.stringify(v)}`, streams: false });
  }
  return blocks;
}

/** One structured answer as it fills in, and what of it has been printed. */
export class AnswerView {
  /** The newest value shown. */
  value?: Record<string, unknown>;
  private printedBlocks = 0;
  private partial = '';

  constructor(
    readonly role: string,
    private readonly write: (text: string) => void,
  ) {}

  /** Takes the answer's newest value (a partial one while it streams). */
  show(value: Record<string, unknown>): void {
    this.value = value;
  }

  /** Prints what is new; `final` when the answer is complete (its last field is printed whole). */
  render(final = false): void {
    const blocks = this.value ? blocksOf(this.value) : [];
    for (let i = this.printedBlocks; i < blocks.length; i++) {
      const b = blocks[i];
      const open = i === blocks.length - 1 && !final;
      if (open) {
        if (b.streams && b.text.startsWith(this.partial)) {
          this.write(b.text.slice(this.partial.length));
          this.partial = b.text;
        }
        return;
      }
      this.write(
        this.partial && b.text.startsWith(this.partial)
          ? `${b.text.slice(this.partial.length)}\n`
          : `${this.partial ? '\n' : ''}${b.text}\n`,
      );
      this.partial = '';
      this.printedBlocks = i + 1;
    }
  }
}
