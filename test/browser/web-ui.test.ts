import fs from 'node:fs';
import path from 'node:path';
import { runUiUrl } from '../../src/server/launcher';
import { reply } from '../../src/testing/fake-provider';
import { PRIMARY, agentFixture, type AgentFixture } from '../agent/agent-kit';
import { describeBrowser, launchBrowser, webUiUrl, type TestBrowser } from '../kit/browser';
import { testConnection, withWorker } from '../kit/temporal';

describeBrowser('Temporal Web UI of the tests’ dev server', () => {
  let fx: AgentFixture;
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
    fx = await agentFixture();
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  it('shows a finished agent run’s history: its id, its type, and the model and tool activities with their summaries', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]), reply.text('5.'));
    const run = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Add 2 and 3.', model: PRIMARY });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: '5.' });
      const { runId, type } = await client.workflow.getHandle(id).describe();
      return { id, runId, type };
    });
    const { namespace } = await testConnection();

    const page = await browser.open(runUiUrl(webUiUrl(), namespace, run.id, run.runId));
    try {
      await page.element('[data-testid="workflow-id-heading"]', { hasText: [run.id] });
      await page.text(run.type);
      const event = '[data-testid="event-summary-row"]';
      await page.element(event, { hasText: ['callModel', `model: ${PRIMARY}`] });
      await page.element(event, { hasText: ['runTool', 'tool: add'] });
    } finally {
      await page.close();
    }
  });

  it('names a screenshot and the page text, both saved, when a wait fails', async () => {
    const page = await browser.open('data:text/html,<h1>Nothing to see</h1>');
    try {
      const failure = await page.text('absent words', { timeoutMs: 300 }).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(failure).toMatch(/^waiting 300 ms for text absent words on data:text\/html,.*: locator\.waitFor: Timeout/);
      const [, screenshot, text] = /\(screenshot (\S+), page text (\S+)\)$/.exec(failure ?? '') ?? [];
      expect(fs.readFileSync(screenshot).subarray(1, 4).toString()).toBe('PNG');
      expect(fs.readFileSync(text, 'utf8')).toContain('Nothing to see');
      fs.rmSync(path.dirname(text), { recursive: true, force: true });
    } finally {
      await page.close();
    }
  });
});
