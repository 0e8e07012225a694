import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../src/server/ports';
import { describeBrowser, launchBrowser, type TestBrowser } from '../kit/browser';
import { runCli, spawnCli, stopProcess, waitForOutput } from '../kit/cli';
import { workflowBundle } from '../kit/temporal';

describeBrowser('a demo run’s history in the Web UI of the dev server the project starts', () => {
  let browser: TestBrowser;
  let server: ChildProcess | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-demo-history-'));
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (server) await stopProcess(server);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the text the fs_read tool returned, read through the codec server, not its hash', async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    // `durable-agents dev-server`: the dev server, its Web UI, and the codec server the UI reads through.
    server = spawnCli(
      ['dev-server', '--port', String(port), '--ui-port', String(uiPort), '--db-filename', path.join(dir, 'dev.db')],
      { cwd: dir },
    );
    const started = await waitForOutput(server, /Press Ctrl-C to stop/);
    expect(started).toMatch(/^Codec server: http:\/\/localhost:\d+ /m);

    // No provider keys: the demo takes its scripted model, and its worker reads the notes file with fs_read.
    const demo = await runCli(['demo', '--no-wait', '--port', String(port), '--ui-port', String(uiPort)], {
      env: { DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
      cwd: dir,
    });
    expect(demo).toMatchObject({ code: 0, stderr: '' });
    expect(demo.stdout).toMatch(/\[turn 2\] tool fs_read \(\S+\) ran in \d+ ms/);
    const link = /^Temporal UI: (\S+)$/m.exec(demo.stdout)?.[1];
    expect(link).toBeDefined();

    // The link the demo prints, as an operator would open it.
    const page = await browser.open(link!);
    try {
      const row = '[data-testid="event-summary-row"]';
      // fs_read is a quick tool: the model call of its turn ran it, so that call's result holds the
      // answer (the call with its arguments) and the tool's result, each body beside its hash.
      const call = await page.element(row, { hasText: ['Activity Task Completed', 'notes.md'] });
      // A row's preview is one short line; the row opens to its whole decoded result.
      await page.check('opening the model call that ran the tool', () => call.click());
      // The result is a long JSON document drawn a screenful at a time; the tool's result comes last.
      await page.check('moving to the end of the result', async () => {
        await page.page.locator('.cm-content').last().click();
        await page.page.keyboard.press('Control+End');
      });
      await page.text('# Launch checklist');
      await page.text('- [ ] Ship the docker-compose stack');
    } finally {
      await page.close();
    }
  });
});
