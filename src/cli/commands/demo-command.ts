import { errorText } from '../../common/error-text';
import crypto from 'node:crypto';
import type { Command } from 'commander';
import { Worker } from '@temporalio/worker';
import { AgentClient } from '../../client';
import { connectionSettingsFromEnv, connectClient } from '../../connection/connection-settings';
import { ensureTemporal, type TemporalServer } from '../../server/launcher';
import { runUiUrl } from '../../server/web-ui';
import { ensureSearchAttributes } from '../../connection/search-attribute-registration';
import { configureWorkerRuntime, connectWorker } from '../../worker/run-worker';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { workerConfig, type WorkerConfig } from '../../worker/worker-config';
import { openStore } from '../../store';
import { chooseDemoModel, prepareDemoTask } from '../demo-job';
import { WatchPrinter } from '../watch-output';
import { parsePort, parseSeconds } from '../option-parsers';
import { SetupError } from '../../connection/setup-error';
import { codecLine } from './dev-server-command';
import { workerCodecSource } from './codec-server-command';
import { waitForStopSignal } from '../stop-signal';
import { printLine, printText } from '../terminal-text';
import { usd } from '../../common/decimal';

interface DemoOptions {
  wait: boolean;
  port: number;
  uiPort?: number;
  model?: string;
  timeout: number;
  codec: boolean;
}

/** `durable-agents demo`: server (started when none answers), in-process worker, one agent run. */
export function registerDemoCommand(program: Command, _globals: unknown, env: NodeJS.ProcessEnv): void {
  program
    .command('demo')
    .description(
      'Run a sample agent job end to end: start a dev server when none is reachable, a worker in-process, ' +
        'one run; print its result and UI link.',
    )
    .option('--port <port>', 'port of the local dev server to use or start', parsePort, 7233)
    .option('--ui-port <port>', 'Web UI port of that server (default: port + 1000)', parsePort)
    .option(
      '--model <provider/model>',
      'model to use (default: by the provider key set, else the built-in scripted model)',
    )
    .option('--timeout <seconds>', 'give up waiting for the run after this long', parseSeconds, 300)
    .option('--no-wait', 'exit right after the run, stopping a dev server the demo started')
    .option('--no-codec', 'start no codec server for a dev server the demo starts (the Web UI then shows hashes)')
    .action(async (options: DemoOptions) => {
      const out = (line: string) => printLine(`${line}\n`);
      const model = await chooseDemoModel(env, options.model);
      try {
        const config = workerConfig({ inline: model.llmConfig });
        configureWorkerRuntime('WARN', config);
        const server = await ensureTemporal({
          env,
          port: options.port,
          uiPort: options.uiPort,
          ...(options.codec ? { codec: workerCodecSource(config) } : {}),
        });
        try {
          out(describeServer(server));
          out(model.note);
          const workflowId = await runDemoAgent(server, options, { model: model.model, config }, out);
          out(`Listed by: temporal workflow list --address ${server.address} --query 'WorkflowId="${workflowId}"'`);
          if (server.origin.startsWith('started') && options.wait) {
            out(
              'The dev server keeps running so the link works; press Ctrl-C to stop it (runs are kept in ' +
                '.temporal/dev.db).',
            );
            await waitForStopSignal();
          }
        } finally {
          await server.stop();
        }
      } finally {
        await model.close();
      }
    });
}

function describeServer(server: TemporalServer): string {
  switch (server.origin) {
    case 'TEMPORAL_ADDRESS':
      return `Temporal: using TEMPORAL_ADDRESS=${server.address}`;
    case 'already-running':
      return `Temporal: using the server already running at ${server.address}`;
    case 'started-cli':
      return (
        `Temporal: started a dev server at ${server.address} (CLI ${server.cli?.path}, found via ` +
        `${server.cli?.source})`
      );
    case 'started-download':
      return `Temporal: started a dev server at ${server.address} from the SDK's downloaded CLI`;
  }
}

/** Prints the run's events and tokens as they come, indented; a failed watch only loses the view. */
async function showLive(agents: AgentClient, workflowId: string): Promise<void> {
  let lineStart = true;
  // Text that starts a line is indented: after a newline, or first in a write when the last write ended its line.
  const write = (text: string) => {
    printText(text.replace(/[^\n]+/g, (part, at: number) => (at > 0 || lineStart ? `  ${part}` : part)));
    if (text) lineStart = text.endsWith('\n');
  };
  const printer = new WatchPrinter(write);
  try {
    const onNotice = (message: string) => write(`(${message})\n`);
    for await (const item of agents.watch(workflowId, { answers: true, onNotice })) printer.print(item);
  } catch (err) {
    printer.endLine();
    write(`(live view stopped: ${errorText(err)})\n`);
  }
  printer.endLine();
}

async function runDemoAgent(
  server: TemporalServer,
  options: DemoOptions,
  { model, config }: { model: string; config: WorkerConfig },
  out: (line: string) => void,
): Promise<string> {
  const settings = { ...connectionSettingsFromEnv(), address: server.address, namespace: server.namespace };
  const job = prepareDemoTask(process.cwd());
  const connection = await connectWorker(settings);
  const client = await connectClient(settings);
  const store = await openStore(config.store);
  try {
    const registered = await ensureSearchAttributes(client, settings.namespace);
    if (registered.length) out(`Temporal: registered the search attributes ${registered.join(', ')}`);
    // A queue of its own, so a long-running worker with older code never takes the demo's tasks.
    const taskQueue = `demo-${crypto.randomUUID()}`;
    // Unversioned even when DURABLE_AGENTS_DEPLOYMENT is set: no version is current on a queue of its own.
    const unversioned = { ...config, deployment: undefined };
    const worker = await Worker.create({
      connection,
      namespace: settings.namespace,
      taskQueue,
      plugins: [new DurableAgentsPlugin({ config: unversioned, store })],
    });
    const workflowId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    out(`Worker: in-process on task queue ${taskQueue}`);
    out(`Task: ${job.task}`);
    // The worker's own store: the watch reads the run's tokens there.
    const agents = new AgentClient(client, taskQueue, { store });
    const result = await worker.runUntil(async () => {
      await agents.start({
        id: workflowId,
        task: job.task,
        model,
        tools: { allow: job.tools, workspaceRoot: job.workspaceRoot },
        stream: true,
      });
      out('Live (the same view as `durable-agents watch <id>`):');
      const watching = showLive(agents, workflowId);
      const done = await withTimeout(agents.result(workflowId), options.timeout * 1000, () => {
        const link = server.uiUrl ? `: see ${runUiUrl(server.uiUrl, settings.namespace, workflowId)}` : '';
        return new SetupError(`The demo run ${workflowId} did not finish within ${options.timeout} s${link}`);
      });
      await watching;
      return done;
    });
    const { runId } = await client.workflow.getHandle(workflowId).describe();
    out(`Workflow: ${workflowId} (run ${runId})`);
    out(
      `Result (${result.status}, ${result.turns} turns, ${result.model}, ${usd(result.costUsd)}): ` +
        `${result.finalText}`,
    );
    if (result.error) out(`Error: ${result.error.message}`);
    if (result.status !== 'completed') process.exitCode = 1;
    out(
      server.uiUrl
        ? `Temporal UI: ${runUiUrl(server.uiUrl, settings.namespace, workflowId, runId)}`
        : `Temporal UI: not known for the server at ${server.address}: set TEMPORAL_UI_URL to the UI's address`,
    );
    if (server.codecUrl) out(codecLine(server.codecUrl, workflowId));
    return workflowId;
  } finally {
    await store.close();
    await client.connection.close();
    await connection.close();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
