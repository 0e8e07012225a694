import type { MessageMeta } from '../../../src/contracts/agent-run';

/** One entry of a run's message log as the context policies read it. */
export const meta = (
  seq: number,
  kind: MessageMeta['kind'],
  tokens: number,
  extra: Partial<MessageMeta> = {},
): MessageMeta => ({ seq, kind, hash: `h${seq}`, tokens, ...extra });

/** A task, then `turns` tool turns: an answer calling one tool and its successful result of `tokens` each. */
export function toolLoop(turns: number, tokens: number): MessageMeta[] {
  const log = [meta(0, 'user', 20)];
  for (let t = 0; t < turns; t++) {
    const seq = 1 + 2 * t;
    log.push(meta(seq, 'assistant', 30, { toolCallIds: [`c${t}`] }));
    log.push(meta(seq + 1, 'tool_result', tokens, { toolCallId: `c${t}`, isError: false }));
  }
  return log;
}
