/**
 * Text a run holds reaches the terminal without its control characters: a model answer, a tool
 * result and a task that carry escape sequences (window title, screen clear, an OSC 52 clipboard
 * write) print escaped from every command, each a new CLI process writing to a pipe, and `--json`
 * stays JSON of the exact text.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { reply } from '../../src/testing/fake-provider';
import { defineTool } from '../../src/tools';
import { runCli, type CliResult } from '../kit/cli';
import { testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';

/** Sets the window title, clears the screen, writes "pwned" to the clipboard. */
const HOSTILE = '\x1b]0;OWNED\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07';
const SHOWN = '\\u001b]0;OWNED\\u0007\\u001b[2J\\u001b]52;c;cHduZWQ=\\u0007';
/** A C1 control (CSI on terminals that take 8-bit controls), which JSON text keeps raw. */
const C1 = '\u009b31m';

const readPage = defineTool({
  name: 'read_page',
  description: 'Reads the page.',
  parameters: z.object({}),
  execute: () => `page text${HOSTILE}`,
});

/** Fails the test with what the command printed when its output holds a control a terminal acts on. */
function expectNoControls(what: string, result: CliResult): void {
  // eslint-disable-next-line no-control-regex
  const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.exec(result.stdout + result.stderr);
  if (raw) throw new Error(`${what} printed U+${raw[0].charCodeAt(0).toString(16)}: ${JSON.stringify(result)}`);
}

describe('terminal escapes in what runs hold', () => {
  const fx = useAgentFixture({}, { tools: [readPage] });

  it('run, result, watch, trace, list and transcript print them escaped; --json keeps the exact text', async () => {
    const { address, namespace } = await testConnection();
    await withWorker({ activities: fx.activities }, async ({ taskQueue }) => {
      const env = {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        DURABLE_AGENTS_TASK_QUEUE: taskQueue,
        DURABLE_AGENTS_STORE_DIR: fx.store.root,
      };
      const answer = `Summary done.${HOSTILE}${C1}`;
      fx.fake.script(reply.toolCalls([{ name: 'read_page', arguments: {}, id: 'toolu_page' }]), reply.text(answer));
      const id = `escapes-${crypto.randomUUID()}`;
      const tenant = `esc-${crypto.randomUUID().slice(0, 8)}`;
      const task = `${HOSTILE}Summarise the page.`;
      const args = ['run', '--id', id, '--tenant', tenant, '--model', PRIMARY, '--tools', 'read_page', task];
      const run = await runCli(args, { env });
      expect(run.code).toBe(0);
      expectNoControls('run', run);
      expect(run.stdout).toContain(`Summary done.${SHOWN}\\u009b31m`);

      const [result, json, watch, trace, transcript] = await Promise.all(
        [
          ['result', id],
          ['result', id, '--json'],
          ['watch', id],
          ['trace', id],
          ['transcript', id],
        ].map((a) => runCli(a, { env })),
      );
      for (const [what, printed] of Object.entries({ result, watch, trace, transcript })) {
        expect(printed.code).toBe(0);
        expectNoControls(what, printed);
      }
      expect(result.stdout).toContain(`Summary done.${SHOWN}`);
      expect((JSON.parse(json.stdout) as { finalText: string }).finalText).toBe(answer);
      expectNoControls('result --json', json);
      expect(watch.stdout).toContain(`-> page text${SHOWN}`);
      expect(watch.stdout).toContain(`Summary done.${SHOWN}`);
      expect(trace.stdout).toContain(`-> page text${SHOWN}`);
      expect(trace.stdout).toContain(`final: Summary done.${SHOWN}`);
      expect(transcript.stdout).toContain(`user (task): ${SHOWN}Summarise the page.`);
      expect(transcript.stdout).toContain(`tool read_page [toolu_page]: page text${SHOWN}`);

      // Visibility is eventually consistent: the run's row may take a moment.
      let list: CliResult | undefined;
      for (let tries = 0; tries < 40 && !list?.stdout.includes(id); tries++) {
        if (tries > 0) await new Promise((r) => setTimeout(r, 500));
        list = await runCli(['list', '--tenant', tenant], { env });
      }
      expect(list?.stdout).toContain(id);
      expectNoControls('list', list!);
      expect(list?.stdout).toContain(`${SHOWN}Summarise the page.`);
    });
  });
});
