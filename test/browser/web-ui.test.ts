import fs from 'node:fs';
import path from 'node:path';
import { connectAgents } from '../../src/cli/cli-context';
import { runUiUrl, type RunTab } from '../../src/server/web-ui';
import { reply, type FakeStep } from '../../src/testing/fake-provider';
import { PRIMARY, quickLookup, useAgentFixture, waitForState } from '../agent/agent-kit';
import { startParent, who } from '../agent/subagents-kit';
import { describeBrowser, launchBrowser, webUiUrl, type TestBrowser } from '../kit/browser';
import { testConnection, withWorker } from '../kit/temporal';

/** A row of the Web UI's workflow list. */
const LIST_ROW = '[data-testid="workflows-summary-configurable-table-row"]';
/** A row of a run's event history. */
const EVENT_ROW = '[data-testid="event-summary-row"]';

describeBrowser('Temporal Web UI of the tests’ dev server', () => {
  const fx = useAgentFixture(
    {},
    {
      tools: [quickLookup],
    },
  );
  let browser: TestBrowser;
  let namespace: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    ({ namespace } = await testConnection());
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The workflow list filtered by a visibility query. */
  const listUrl = (query: string): string =>
    `${webUiUrl().replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
  /** A tab of one run's page. */
  const runUrl = (id: string, runId: string, tab: RunTab): string => runUiUrl(webUiUrl(), namespace, id, runId, tab);

  it('lists a run that ended in error under the Failed status', async () => {
    fx.fake.script(reply.error(401));
    const id = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const started = await agents.start({ task: 'Try with a revoked key.', model: PRIMARY });
      expect(await agents.result(started)).toMatchObject({ status: 'failed' });
      return started;
    });
    const page = await browser.open(listUrl(`ExecutionStatus="Failed" AND WorkflowId="${id}"`));
    try {
      const row = await page.element(LIST_ROW, { hasText: [id] });
      expect(await row.locator('[data-testid="execution-status"]').innerText()).toMatch(/^failed$/i);
    } finally {
      await page.close();
    }
  });

  it('lists each run with its task by default, in the DurableAgentTask column, and its summary on its own page', async () => {
    const task = 'Add 2 and 3 for the list.';
    fx.fake.script(reply.text('5.'));
    const run = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: `${task}\nShow your work.`, model: PRIMARY });
      await agents.result(id);
      return { id, runId: (await client.workflow.getHandle(id).describe()).runId };
    });
    expect(run.id).toMatch(/^add-2-and-3-for-the-list-[0-9a-f]{12}$/);
    // The list's default columns (status, id, run id, type, times) show no summary: the id carries the task's words.
    const plain = await browser.open(listUrl(`WorkflowId="${run.id}"`));
    try {
      await plain.element(LIST_ROW, { hasText: ['add-2-and-3-for-the-list-', 'reactAgentWorkflow'] });
    } finally {
      await plain.close();
    }
    // The steps docs/cli.md gives add the task's column; the browser keeps it for later visits.
    const list = await browser.open(listUrl(`WorkflowId="${run.id}"`));
    try {
      await list.element(LIST_ROW, { hasText: [run.id] });
      await list.page.getByTestId('workflows-summary-table-configuration-button').click();
      await list.page.getByRole('button', { name: 'Add DurableAgentTask column' }).click();
      await list.page.keyboard.press('Escape');
      await list.element(LIST_ROW, { hasText: [run.id, task] });
      await list.goto(listUrl(`WorkflowId="${run.id}"`));
      await list.element(LIST_ROW, { hasText: [run.id, task] });
    } finally {
      await list.close();
    }
    const metadata = await browser.open(runUrl(run.id, run.runId, 'user-metadata'));
    try {
      await metadata.text(`react · ${task}`, { frame: '#user-metadata-summary' });
    } finally {
      await metadata.close();
    }
  });

  it('shows the current details of a run waiting for approval: the tool, its arguments and the commands', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'write_note', arguments: { text: 'ship it' }, id: 'toolu_ui' }]),
      reply.text('Noted.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ tools: { approve: ['write_note'] }, task: 'Write a note.', model: PRIMARY });
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      // The link run prints opens the run's User Metadata tab, under the run's UI host name.
      const { address } = await testConnection();
      const connected = await connectAgents({ address, namespace }, { TEMPORAL_UI_URL: webUiUrl() }, () => undefined);
      const link = await connected.uiLink(id);
      await connected.close();
      const { runId } = await client.workflow.getHandle(id).describe();
      expect(link).toBe(runUrl(id, runId, 'user-metadata'));
      expect(link).toMatch(/^http:\/\/localhost:\d+\//);
      // Current details come from the run's worker (a query), so it keeps polling while the page reads them.
      const page = await browser.open(link!);
      try {
        const frame = '#user-metadata-current-details';
        await page.text('Waiting for approval of write_note', { frame });
        await page.text('"text": "ship it"', { frame });
        await page.text(`durable-agents approve ${id} toolu_ui`, { frame });
      } finally {
        await page.close();
      }
      await agents.approve(id, 'toolu_ui');
      await agents.result(id);
    });
  });

  it('tells a run’s activities apart on its timeline and in its event history: turn and model, tool and argument', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]), reply.text('5.'));
    const run = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Add 2 and 3.', model: PRIMARY });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: '5.' });
      const { runId, type } = await client.workflow.getHandle(id).describe();
      return { id, runId, type };
    });

    const timeline = await browser.open(runUrl(run.id, run.runId, 'timeline'));
    try {
      await timeline.element('[data-testid="workflow-id-heading"]', { hasText: [run.id] });
      await timeline.text(run.type);
      // The timeline labels an activity `<type> • <summary>`.
      await timeline.text(`callModel • turn 1 · model ${PRIMARY}`);
      await timeline.text('runTool • tool add a=2 b=3');
      await timeline.text(`callModel • turn 2 · model ${PRIMARY}`);
    } finally {
      await timeline.close();
    }
    const history = await browser.open(runUrl(run.id, run.runId, 'history'));
    try {
      await history.element(EVENT_ROW, { hasText: ['callModel', `turn 2 · model ${PRIMARY}`] });
      await history.element(EVENT_ROW, { hasText: ['runTool', 'tool add a=2 b=3'] });
    } finally {
      await history.close();
    }
  });

  it('names the quick calls a model call ran itself on the timeline, and shows turns and cost as text, not math', async () => {
    const usage = { input: 10_000, output: 1_000 };
    fx.fake.script(
      reply.toolCalls([{ name: 'lookup', arguments: { n: 7 } }], { usage }),
      reply.text('Entry 7.', { usage }),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Look 7 up.', model: PRIMARY, limits: { maxCostUsd: 2 } });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', turns: 2 });
      const { runId } = await client.workflow.getHandle(id).describe();
      const timeline = await browser.open(runUrl(id, runId, 'timeline'));
      try {
        await timeline.text(`callModel • turn 2 · model ${PRIMARY} · turn 1 ran tool lookup n=7`);
      } finally {
        await timeline.close();
      }
      // Current details come from the worker, which still polls.
      const metadata = await browser.open(runUrl(id, runId, 'user-metadata'));
      try {
        const frame = '#user-metadata-current-details';
        await metadata.element('li', { frame, hasText: [/^\s*turns: 2 of 50\s*$/] });
        await metadata.element('li', { frame, hasText: [/^\s*cost: \$0\.\d{4} of \$2\.00\s*$/] });
        await metadata.element('li', { frame, hasText: [/^\s*ended: completed\s*$/] });
      } finally {
        await metadata.close();
      }
    });
  });

  it('names an approved call that ran as a local activity on the next model call’s row, and in the event history', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'lookup', arguments: { n: 7 }, id: 'toolu_local' }]),
      reply.text('Entry 7.'),
    );
    const run = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ tools: { approve: ['lookup'] }, task: 'Look 7 up.', model: PRIMARY });
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      await agents.approve(id, 'toolu_local');
      expect(await agents.result(id)).toMatchObject({ status: 'completed', turns: 2 });
      return { id, runId: (await client.workflow.getHandle(id).describe()).runId };
    });
    // The timeline labels a local activity by its type alone (`runTool`), so the next call names it.
    const timeline = await browser.open(runUrl(run.id, run.runId, 'timeline'));
    try {
      await timeline.text(`callModel • turn 2 · model ${PRIMARY} · turn 1 ran tool lookup n=7`);
    } finally {
      await timeline.close();
    }
    const history = await browser.open(runUrl(run.id, run.runId, 'history'));
    try {
      await history.element(EVENT_ROW, { hasText: ['runTool', 'tool lookup n=7'] });
    } finally {
      await history.close();
    }
  });

  it('shows a run’s sub-agents under it: on its timeline with their summaries, in its relationships and the list', async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, answers } = who(request);
      if (agent === 'parent')
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'Find the launch date' }, id: 'toolu_ui' }])
          : reply.text('It launches in May.');
      return reply.text('May.');
    });
    const run = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startParent(agents, { task: 'When is the launch?' });
      await agents.result(id);
      return { id, runId: (await client.workflow.getHandle(id).describe()).runId };
    });
    const child = `${run.id}/researcher-toolu_ui`;
    const timeline = await browser.open(runUrl(run.id, run.runId, 'timeline'));
    try {
      await timeline.text('sub-agent researcher: Find the launch date');
    } finally {
      await timeline.close();
    }
    // The child's own page says what it is and whose sub-agent it is.
    const { client } = await testConnection();
    const childRunId = (await client.workflow.getHandle(child).describe()).runId;
    const childPage = await browser.open(runUrl(child, childRunId, 'user-metadata'));
    try {
      await childPage.text('sub-agent researcher: Find the launch date', { frame: '#user-metadata-summary' });
      await childPage.text(`Parent ${run.id}, as its researcher`, { frame: '#user-metadata-details' });
    } finally {
      await childPage.close();
    }
    const relationships = await browser.open(runUrl(run.id, run.runId, 'relationships'));
    try {
      await relationships.text(child);
    } finally {
      await relationships.close();
    }
    const columns = JSON.stringify({
      [namespace]: [{ label: 'Status' }, { label: 'Workflow ID' }, { label: 'Type' }, { label: 'DurableAgentTask' }],
    });
    const list = await browser.open(listUrl(`ParentWorkflowId="${run.id}"`), {
      localStorage: { 'namespace-workflow-table-columns': columns },
    });
    try {
      await list.element(LIST_ROW, { hasText: [child, 'Find the launch date'] });
    } finally {
      await list.close();
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
