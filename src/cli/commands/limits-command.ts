/**
 * `durable-agents limits`: the fleet's provider and model limits (docs/fleet.md). `set` checks the
 * change as a worker would read it, sets the limited queue's rate on the server, then writes the
 * config file; `show` prints each limit, configured or learned from a provider's 429s, with the
 * server's rate and the queue's backlog.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { json } from './agent-deps';
import { rangeText } from '../../common/decimal';
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { REQUESTS_PER_MINUTE, configFileFor, type CallLimits } from '../../llm/llm-config';
import { TENANT_WEIGHT } from '../../policy/tenancy';
import { withLimits } from '../../llm/limits-file';
import { llmQueueOf } from '../../policy/llm-queues';
import { PAUSE_SWEEP_MS } from '../../worker/queue-pacer';
import { parsePace } from '../../worker/queue-pace';
import { startQueueRate } from '../../worker/queue-rate';
import { cliConfig } from '../cli-config';
import { withTemporal, type GlobalOptions } from '../cli-context';
import { UsageError } from '../exit-codes';
import { decimalArg, positiveInt, tenantArg } from '../option-parsers';
import { printLine } from '../terminal-text';
import { parseJson } from '../../common/json-text';
import { definedFields } from '../../common/type-helpers';

/** One limit as `limits show` reports it. */
interface LimitView {
  key: string;
  taskQueue: string;
  /** The configured limit (requests a minute); absent for a rate only learned. */
  requestsPerMinute?: number;
  concurrency?: number;
  /** The rate the server enforces now (requests a minute); absent when none is set. */
  serverRequestsPerMinute?: number;
  /** Model calls waiting on the queue. */
  backlog: number;
  /** Set while a provider's 429 holds the queue (rate 0): until when, ISO. */
  pausedUntil?: string;
  /** A rate learned from the provider's 429s: the rate it was learned at and since when (ISO); it rises from there. */
  learned?: { requestsPerMinute: number; since: string };
}

function readRaw(file: string): unknown {
  if (!fs.existsSync(file)) return {};
  try {
    return parseJson(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON (${(err as Error).message}); nothing changed.`);
  }
}

async function describeLimit(
  client: Client,
  key: string,
  taskQueue: string,
  limits: CallLimits | undefined,
): Promise<LimitView> {
  const described = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    reportConfig: true,
    reportStats: true,
  });
  const rps = described.config?.queueRateLimit?.rateLimit?.requestsPerSecond;
  const pace = parsePace(described.config?.queueRateLimit?.metadata?.reason);
  return {
    key,
    taskQueue,
    ...definedFields({ requestsPerMinute: limits?.requestsPerMinute, concurrency: limits?.concurrency }),
    ...(typeof rps === 'number' ? { serverRequestsPerMinute: Math.round(rps * 60 * 1000) / 1000 } : {}),
    backlog: Number(described.stats?.approximateBacklogCount ?? 0),
    ...(pace?.pausedUntil !== undefined && pace.pausedUntil > Date.now()
      ? { pausedUntil: new Date(pace.pausedUntil).toISOString() }
      : {}),
    ...(pace?.learnedSince !== undefined
      ? { learned: { requestsPerMinute: pace.requestsPerMinute, since: new Date(pace.learnedSince).toISOString() } }
      : {}),
  };
}

function limitLine(v: LimitView): string {
  const learned = v.learned && `  learned: ${v.learned.requestsPerMinute}/min since ${v.learned.since} after a 429`;
  return (
    `${v.key}  ${v.requestsPerMinute === undefined ? 'no limit configured' : `${v.requestsPerMinute}/min`}` +
    `${v.concurrency === undefined ? '' : `  ${v.concurrency} at once per worker`}${learned ?? ''}` +
    `  server: ${v.serverRequestsPerMinute === undefined ? 'no rate' : `${v.serverRequestsPerMinute}/min`}` +
    `  backlog: ${v.backlog}  queue: ${v.taskQueue}` +
    `${v.pausedUntil === undefined ? '' : `  paused until ${v.pausedUntil} after a 429`}`
  );
}

export function registerLimitsCommands(program: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  // `limits` names no server on stderr, even with --verbose.
  const quiet = (): GlobalOptions => ({ ...globals(), verbose: false });
  const limits = program
    .command('limits')
    .description("The fleet's provider and model limits, enforced by the server for every worker (docs/fleet.md).");

  limits
    .command('set')
    .description(
      'Limit a provider or model: sets its queue rate on the server now (running workers send its calls ' +
        'there within seconds) and writes the config file (DURABLE_AGENTS_CONFIG or ./durable-agents.json); ' +
        'a new concurrency applies when workers restart.',
    )
    .argument('<provider[/model]>', 'e.g. anthropic or openai/gpt-4o')
    .requiredOption(
      '--rpm <n>',
      `model calls a minute across the fleet, ${rangeText(REQUESTS_PER_MINUTE).replace(/^a number /, '')}`,
      decimalArg(REQUESTS_PER_MINUTE),
    )
    .option('--concurrency <n>', 'model calls one worker runs at once', positiveInt)
    .action(async (key: string, options: { rpm: number; concurrency?: number }) => {
      const file = configFileFor(env);
      const next = (() => {
        try {
          return withLimits(
            readRaw(file),
            key,
            { requestsPerMinute: options.rpm, concurrency: options.concurrency },
            env,
          );
        } catch (err) {
          if (err instanceof UsageError) throw err;
          throw new UsageError(`${(err as Error).message} Nothing changed.`);
        }
      })();
      const { taskQueue, pausedUntil } = await withTemporal(quiet(), env, async (client, { taskQueue: base }) => {
        const queue = llmQueueOf(base, key);
        const started = await startQueueRate(client.workflowService, client.options.namespace, queue, options.rpm);
        return { taskQueue: queue, ...started };
      });
      fs.writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
      const when =
        pausedUntil === undefined
          ? 'set on the server'
          : `on the server once a 429's pause ends at ${new Date(pausedUntil).toISOString()}`;
      const perWorker =
        options.concurrency === undefined
          ? ''
          : ` ${options.concurrency} at once per worker applies to each worker when it restarts.`;
      printLine(
        `${key}: ${options.rpm} model calls a minute on task queue "${taskQueue}" (${when}); written to ${file}. ` +
          `Running workers send ${key}'s calls to that queue within ${PAUSE_SWEEP_MS / 1000} s, without a restart.` +
          perWorker,
      );
    });

  limits
    .command('set-tenant')
    .description(
      "Give a tenant a fairness weight on the workers' queues and every limited queue: its share of a " +
        'backlog against the other tenants (default weight 1).',
    )
    .argument('<tenant>', 'the tenant name runs are started with (--tenant)', tenantArg)
    .requiredOption('--weight <w>', rangeText(TENANT_WEIGHT), decimalArg({ ...TENANT_WEIGHT, what: 'a weight' }))
    .action(async (tenant: string, options: { weight: number }) => {
      const config = cliConfig(env);
      const queues = await withTemporal(quiet(), env, async (client, { taskQueue: base }) => {
        const targets: [string, number][] = [
          [base, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW],
          [base, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY],
          ...Object.keys(config.limits).map((key): [string, number] => [
            llmQueueOf(base, key),
            temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
          ]),
        ];
        for (const [taskQueue, taskQueueType] of targets)
          await client.workflowService.updateTaskQueueConfig({
            namespace: client.options.namespace,
            identity: 'durable-agents',
            taskQueue,
            taskQueueType,
            setFairnessWeightOverrides: { [tenant]: options.weight },
          });
        return [...new Set(targets.map(([q]) => q))];
      });
      printLine(`${tenant}: weight ${options.weight} on ${queues.map((q) => `"${q}"`).join(', ')}.`);
    });

  limits
    .command('show')
    .description("Each limit in the config file with the rate the server enforces and its queue's backlog.")
    .option('--json', 'one JSON array')
    .action(async (options: { json?: boolean }) => {
      const config = cliConfig(env);
      // The configured limits, and every provider whose queue has a rate (set elsewhere, or learned).
      const keys = [...new Set([...Object.keys(config.limits), ...Object.keys(config.providers)])];
      const views = (
        await withTemporal(quiet(), env, (client, { taskQueue: base }) =>
          Promise.all(keys.map((key) => describeLimit(client, key, llmQueueOf(base, key), config.limits[key]))),
        )
      ).filter((v) => v.requestsPerMinute !== undefined || v.serverRequestsPerMinute !== undefined);
      if (options.json) printLine(json(views));
      else if (views.length === 0)
        printLine(`No limits in ${config.source ?? configFileFor(env)}, and none learned on the server.`);
      else for (const v of views) printLine(limitLine(v));
    });
}
