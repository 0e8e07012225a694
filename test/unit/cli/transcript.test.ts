import { TRANSCRIPT_MAX_CHARS, formatTranscript } from '../../../src/cli/transcript';
import type { RunMessage } from '../../../src/contracts/run-message';

const bigFile = 'x'.repeat(55_000);

const conversation: RunMessage[] = [
  { role: 'user', seq: 1, text: 'Read big.txt.' },
  {
    role: 'assistant',
    seq: 2,
    text: '',
    thinking: [],
    toolCalls: [{ id: 'toolu_1', name: 'fs_read', arguments: { path: 'big.txt' } }],
  },
  { role: 'tool_result', seq: 3, toolCallId: 'toolu_1', toolName: 'fs_read', isError: false, text: bigFile },
];

describe('formatTranscript', () => {
  it('cuts each text to the limit and says how much it cut and how to see it all', () => {
    const printed = formatTranscript(conversation);
    expect(printed.length).toBeLessThan(TRANSCRIPT_MAX_CHARS + 500);
    expect(printed.split('\n').at(-1)).toBe(
      `#3 tool fs_read [toolu_1]: ${'x'.repeat(TRANSCRIPT_MAX_CHARS)}… ` +
        `[53000 of 55000 characters cut: --max-chars 0 prints them]`,
    );
    expect(printed).toContain('#1 user: Read big.txt.');
  });

  it('prints every character with a limit of 0, and a short text whole under any limit', () => {
    expect(formatTranscript(conversation, [], 0)).toContain(bigFile);
    expect(formatTranscript(conversation, [], 20).split('\n')[0]).toBe('#1 user: Read big.txt.');
  });
});
