import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { serves } from '../../src/server/dev-server';
import { freePort } from '../../src/server/ports';
import { DurableAgentsPlugin } from '../../src/worker/plugin';
import { runCli, spawnCli, stopProcess, waitForOutput, type CliOptions, type CliResult } from '../kit/cli';
import { REPO_ROOT } from '../kit/env';
import { reply, startFakeProvider } from '../../src/testing/fake-provider';
import { HISTORIES_DIR, testConnection, workflowBundle } from '../kit/temporal';

const temporalCli = process.env.DURABLE_AGENTS_TEST_CLI!;

async function startDevServerCommand(
  port: number,
  uiPort: number,
  dbFilename: string,
  cwd: string,
  extra: string[] = [],
) {
  const child = spawnCli(
    ['dev-server', '--port', String(port), '--ui-port', String(uiPort), '--db-filename', dbFilename, ...extra],
    { cwd },
  );
  const output = await waitForOutput(child, /Press Ctrl-C to stop/);
  return { child, output };
}

/** The codec endpoint the Web UI was started with (its settings API). */
async function uiCodecEndpoint(uiPort: number): Promise<string> {
  const settings = (await (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json()) as {
    Codec: { Endpoint: string };
  };
  return settings.Codec.Endpoint;
}

async function replayAgainstCurrentCode(
  ...histories: { workflowId: string; history: unknown }[]
): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  const replaying = Worker.runReplayHistories(
    { workflowBundle: workflowBundle(), plugins: [new DurableAgentsPlugin()] },
    histories,
  );
  for await (const result of replaying) results.push(result);
  return results;
}

async function describeRun(address: string, workflowId: string) {
  const connection = await Connection.connect({ address });
  try {
    return await new Client({ connection }).workflow.getHandle(workflowId).describe();
  } finally {
    await connection.close();
  }
}

/** No provider keys, so the demo takes its scripted model; the run's prebuilt workflow bundle. */
function demoEnv(): NodeJS.ProcessEnv {
  return { DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };
}

/**
 * The demo on two free ports, given as a user gives them, starting its own dev server. Another
 * process of the test run may take a port between `freePort` finding it and the dev server binding
 * it (the demo's CLI loads for a second or two first); the demo then says the address is in use, and
 * runs again on two new ports.
 */
async function demoOnFreePorts(options: CliOptions): Promise<{ demo: CliResult; port: number; uiPort: number }> {
  for (let attempt = 1; ; attempt++) {
    const [port, uiPort] = [await freePort(), await freePort()];
    const demo = await runCli(['demo', '--no-wait', '--port', String(port), '--ui-port', String(uiPort)], options);
    if (attempt < 3 && /bind: address already in use/.test(demo.stderr)) continue;
    return { demo, port, uiPort };
  }
}

describe('dev-server and demo commands', () => {
  it('runs the demo on `durable-agents dev-server`, lists it, records it, and keeps it across a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-dev-server-'));
    const dbFilename = path.join(dir, 'dev.db');
    const [port, uiPort] = [await freePort(), await freePort()];
    const address = `127.0.0.1:${port}`;

    const first = await startDevServerCommand(port, uiPort, dbFilename, dir);
    expect(first.output).toContain(`Web UI: http://localhost:${uiPort}`);
    // A codec server in-process, on 8081 or a free port when that is taken, and the UI reads through it.
    const codecUrl = /^Codec server: (http:\/\/localhost:\d+) /m.exec(first.output)![1];
    expect(await uiCodecEndpoint(uiPort)).toBe(codecUrl);
    const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('<html');
    let workflowId: string;
    try {
      const demo = await runCli(['demo', '--no-wait', '--port', String(port), '--ui-port', String(uiPort)], {
        env: demoEnv(),
        cwd: dir,
      });
      expect(demo.stderr).toBe('');
      expect(demo.code).toBe(0);
      expect(demo.stdout).toContain(`using the server already running at ${address}`);
      workflowId = /^Workflow: (\S+)/m.exec(demo.stdout)![1];
      expect(demo.stdout).toContain('Result (completed, 3 turns, anthropic/claude-sonnet-4-6');
      expect(demo.stdout).toContain(
        `Temporal UI: http://localhost:${uiPort}/namespaces/default/workflows/${workflowId}/`,
      );
      // The history, read through the codec server, shows the notes file the fs_read tool returned
      // (a quick tool: the model call of its turn ran it, and its result is in that call's result).
      const shown = execFileSync(
        temporalCli,
        ['workflow', 'show', '--address', address, '-w', workflowId, '--codec-endpoint', codecUrl, '--detailed'],
        { encoding: 'utf8' },
      );
      expect(shown).toContain(
        'result[0].toolResults[0].body.content[0].text: # Launch checklist\n- [x] Write the design notes',
      );

      const listed = execFileSync(
        temporalCli,
        ['workflow', 'list', '--address', address, '--query', `WorkflowId="${workflowId}"`, '-o', 'json'],
        {
          encoding: 'utf8',
        },
      );
      expect(JSON.parse(listed)).toEqual([
        expect.objectContaining({
          execution: expect.objectContaining({ workflowId }),
          status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED',
        }),
      ]);

      // The recording script itself, into a scratch directory; RECORD_HISTORIES=1 also refreshes the committed one.
      const recordInto = (dir: string) =>
        execFileSync(
          process.execPath,
          ['-r', './scripts/register-ts.js', 'scripts/record-history.ts', workflowId, '--name', 'demo', '--dir', dir],
          {
            cwd: REPO_ROOT,
            env: { ...process.env, TEMPORAL_ADDRESS: address },
            encoding: 'utf8',
          },
        );
      expect(recordInto(path.join(dir, 'histories'))).toContain(
        `Recorded reactAgentWorkflow ${workflowId} (COMPLETED)`,
      );
      const fresh = JSON.parse(fs.readFileSync(path.join(dir, 'histories', 'demo.json'), 'utf8'));
      const [replayed] = await replayAgainstCurrentCode({ workflowId, history: fresh });
      expect(replayed.error).toBeUndefined();
      if (process.env.RECORD_HISTORIES === '1') recordInto(HISTORIES_DIR);
      const recorded = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, 'demo.json'), 'utf8'));
      const demoType = (await describeRun(address, workflowId)).type;
      expect(recorded.events[0].workflowExecutionStartedEventAttributes.workflowType.name).toBe(demoType);
    } finally {
      expect(await stopProcess(first.child)).toBe(0);
    }

    const second = await startDevServerCommand(port, uiPort, dbFilename, dir, ['--no-codec']);
    try {
      expect(second.output).not.toContain('Codec server');
      expect(await uiCodecEndpoint(uiPort)).toBe('');
      const description = await describeRun(address, workflowId);
      expect(description.status.name).toBe('COMPLETED');
    } finally {
      await stopProcess(second.child);
    }
  });

  it('starts its own dev server when none answers, keeping runs in .temporal/dev.db of the working directory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-demo-'));
    const { demo, port, uiPort } = await demoOnFreePorts({ env: { ...demoEnv(), TEMPORAL_ADDRESS: '' }, cwd: dir });
    expect(demo.stderr).toBe('');
    expect(demo.stdout).toContain(`Temporal: started a dev server at 127.0.0.1:${port}`);
    expect(demo.stdout).toContain('Model: the built-in scripted model, not a real LLM');
    // The run shows live: its events, and the model's text as it streams.
    expect(demo.stdout).toMatch(/^ {2}\[turn 1\] calling anthropic\/claude-sonnet-4-6$/m);
    expect(demo.stdout).toMatch(/^ {2}\[turn 1\] tool fs_list \(\S+\) ran in \d+ ms$/m);
    expect(demo.stdout).toMatch(/^ {2}\[turn 2\] tool fs_read \(\S+\) ran in \d+ ms$/m);
    expect(demo.stdout).toMatch(/^ {2}\[turn 3\] done \(completed\) after 3 turns/m);
    // The scripted model answers from the notes file the fs_read tool really read.
    expect(demo.stdout).toMatch(
      /^Result \(completed, 3 turns, .*\): Still open: Record the replay histories; Ship the docker-compose stack\.$/m,
    );
    expect(demo.stdout).toContain(`Temporal UI: http://localhost:${uiPort}/namespaces/default/workflows/demo-`);
    expect(demo.stdout).toMatch(
      /^Codec server: http:\/\/localhost:\d+ \(message bodies in the Web UI; temporal workflow show --codec-endpoint http:\/\/localhost:\d+ --detailed -w demo-\S+\)$/m,
    );
    expect(fs.statSync(path.join(dir, '.temporal', 'dev.db')).size).toBeGreaterThan(0);
  });

  it('registers the search attributes on a plain `temporal server start-dev` before running', async () => {
    const port = await freePort();
    const plain = spawn(temporalCli, [
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--log-level',
      'error',
    ]);
    try {
      const address = `127.0.0.1:${port}`;
      while (!(await serves(address))) await new Promise((resolve) => setTimeout(resolve, 200));
      const demo = await runCli(['demo', '--no-wait', '--port', String(port)], {
        env: demoEnv(),
        cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'da-plain-')),
      });
      expect(demo.stderr).toBe('');
      expect(demo.stdout).toContain(`using the server already running at ${address}`);
      expect(demo.stdout).toContain('Temporal: registered the search attributes DurableAgentKind, DurableAgentPhase');
      expect(demo.stdout).toContain('Result (completed, 3 turns');
    } finally {
      plain.kill('SIGTERM');
    }
  });

  it('uses the provider whose key is set, through its real SDK', async () => {
    // The provider here is the fake Anthropic API (the real one needs internet); the demo cannot
    // tell: it sees ANTHROPIC_API_KEY and talks to ANTHROPIC_BASE_URL with the Anthropic SDK.
    const provider = await startFakeProvider({ apiKey: 'demo-key' });
    provider.script(reply.text('Two items are open.'));
    try {
      const { address } = await testConnection();
      const demo = await runCli(['demo', '--no-wait'], {
        env: {
          ...demoEnv(),
          TEMPORAL_ADDRESS: address,
          ANTHROPIC_API_KEY: 'demo-key',
          ANTHROPIC_BASE_URL: provider.anthropicBaseUrl(),
        },
        cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'da-keyed-')),
      });
      expect(demo.stderr).toBe('');
      expect(demo.stdout).toContain('Model: anthropic/claude-haiku-4-5 (ANTHROPIC_API_KEY is set)');
      expect(demo.stdout).not.toContain('scripted model');
      expect(demo.stdout).toMatch(
        /^Result \(completed, 1 turns, anthropic\/claude-haiku-4-5, .*\): Two items are open\.$/m,
      );
      expect(provider.requests.map((request) => [request.api, request.body.model, request.status])).toEqual([
        ['anthropic', 'claude-haiku-4-5', 200],
      ]);
    } finally {
      await provider.close();
    }
  });
});
