import crypto from 'node:crypto';
import type { Command } from 'commander';
import { connectionSettingsFromEnv, connectClient } from '../../client/connection';
import { ensureTemporal, runUiUrl, type TemporalServer } from '../../server/launcher';
import { configureWorkerLogging, connectWorker, createWorker } from '../../worker';
import { helloWorkflow } from '../../workflows';
import { parsePort } from '../options';

interface DemoOptions {
  wait: boolean;
  port: number;
  uiPort?: number;
}

/** `durable-agents demo`: server (started when none answers), in-process worker, one sample run. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('Run a sample job end to end: start a dev server when none is reachable, a worker in-process, one run; print its result and UI link.')
    .option('--port <port>', 'port of the local dev server to use or start', parsePort, 7233)
    .option('--ui-port <port>', 'Web UI port of that server (default: port + 1000)', parsePort)
    .option('--no-wait', 'exit right after the run, stopping a dev server the demo started')
    .action(async (options: DemoOptions) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      configureWorkerLogging('WARN');
      const server = await ensureTemporal({ port: options.port, uiPort: options.uiPort });
      try {
        out(describeServer(server));
        const workflowId = await runSample(server, out);
        out(`Listed by: temporal workflow list --address ${server.address} --query 'WorkflowId="${workflowId}"'`);
        if (server.origin.startsWith('started') && options.wait) {
          out('The dev server keeps running so the link works; press Ctrl-C to stop it (runs are kept in .temporal/dev.db).');
          await new Promise<void>((resolve) => {
            process.once('SIGINT', resolve);
            process.once('SIGTERM', resolve);
          });
        }
      } finally {
        await server.stop();
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
      return `Temporal: started a dev server at ${server.address} (CLI ${server.cli?.path}, found via ${server.cli?.source})`;
    case 'started-download':
      return `Temporal: started a dev server at ${server.address} from the SDK's downloaded CLI`;
  }
}

async function runSample(server: TemporalServer, out: (line: string) => void): Promise<string> {
  const settings = { ...connectionSettingsFromEnv(), address: server.address, namespace: server.namespace };
  const connection = await connectWorker(settings);
  const client = await connectClient(settings);
  try {
    // A queue of its own, so a long-running worker with older code never takes the demo's tasks.
    const taskQueue = `demo-${crypto.randomUUID()}`;
    const worker = await createWorker({ connection, namespace: settings.namespace, taskQueue });
    const workflowId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    out(`Worker: in-process on task queue ${taskQueue}`);
    const { runId, result } = await worker.runUntil(async () => {
      const handle = await client.workflow.start(helloWorkflow, { args: ['durable agents'], taskQueue, workflowId });
      return { runId: handle.firstExecutionRunId, result: await handle.result() };
    });
    out(`Workflow: ${workflowId} (run ${runId})`);
    out(`Result: ${result}`);
    if (server.uiUrl) out(`Temporal UI: ${runUiUrl(server.uiUrl, settings.namespace, workflowId, runId)}`);
    return workflowId;
  } finally {
    await client.connection.close();
    await connection.close();
  }
}
