// The chaos suite's worker process: the project's worker (its config, store, activities and
// interceptors) with one more tool, `record_step`, which applies an operation at the effects
// service under the call's idempotency key. Prints "chaos worker polling" once it polls.
// Run: node -r ./scripts/register-ts.js test/kit/chaos/worker-main.ts (configured by environment).
import { z } from 'zod';
import { connectionSettingsFromEnv } from '../../../src/connection/connection-settings';
import { createToolRegistry, defineTool } from '../../../src/tools';
import { configureWorkerRuntime, runWorker } from '../../../src/worker/run-worker';
import { workerConfig } from '../../../src/worker/worker-config';
import { EFFECTS_URL_ENV } from './effects-service';

function recordStepTool(serviceUrl: string) {
  return defineTool({
    name: 'record_step',
    description: 'Records one step of the job at the ledger service. Call it once per step.',
    parameters: z.object({ op: z.string().describe('The step to record, as given in the task.') }),
    sideEffects: true,
    retry: { maximumAttempts: 5, initialIntervalMs: 500 },
    async execute({ op }, ctx) {
      const res = await fetch(`${serviceUrl}/apply`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: ctx.idempotencyKey, op, pid: process.pid }),
        signal: ctx.signal,
      });
      if (!res.ok) throw new Error(`ledger service answered ${res.status}: ${await res.text()}`);
      return `step recorded: ${op}`;
    },
  });
}

async function main(): Promise<void> {
  const serviceUrl = process.env[EFFECTS_URL_ENV];
  if (!serviceUrl) throw new Error(`${EFFECTS_URL_ENV} is not set`);
  const config = workerConfig({ file: null });
  configureWorkerRuntime('WARN', config);
  const registry = createToolRegistry().register(recordStepTool(serviceUrl));
  // Only ever stopped by SIGKILL or by the harness's SIGTERM at the end.
  await runWorker(connectionSettingsFromEnv(), () => process.stdout.write('chaos worker polling\n'), config, registry);
}

main().catch((err: unknown) => {
  process.stderr.write(`chaos worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
