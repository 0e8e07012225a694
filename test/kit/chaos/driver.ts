/**
 * Runs a chaos scenario on a real Temporal server: the plan's runs start group by group on one
 * worker process, which is SIGKILLed at each kill point and started again; runs waiting for
 * approval are approved by the client once an approval wait has been killed. Returns what
 * happened; the test and the bench judge it.
 *
 * Recovery of a kill is measured from the SIGKILL until every affected run makes progress again
 * (its next model request or tool call reaches the fake provider or the effects service, or it
 * ends). The affected runs are those running at the kill, except runs that ask for approvals and
 * have neither a tool call in flight nor were the kill's target (they may be waiting on a person).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { AgentClient } from '../../../src/client';
import type { AgentResult } from '../../../src/contracts/agent-run';
import { fakeProviderEnv, startFakeProvider, type RecordedRequest } from '../../../src/testing/fake-provider';
import { EFFECTS_URL_ENV, startEffectsService, type Invocation } from './effects-service';
import { nextKillMoment, TOOL_HOLD_MS, type RunEvents } from './kill-points';
import { STEPPER, chaosResponder, taskOf, type ModelCall } from './model-script';
import { Prng, expectedFinalText, type ChaosPlan, type KillPoint, type RunSpec } from './plan';
import { workerHost } from './worker-host';

/** What one kill did. */
export interface KillRecord {
  point: KillPoint;
  target: string;
  /** Runs that had to recover. */
  affected: string[];
  /** SIGKILL until the new worker polls. */
  restartMs: number;
  /** SIGKILL until every affected run made progress; undefined when one never did, or none was affected. */
  recoveryMs?: number;
  /** SIGKILL until each affected run made progress. */
  recoveryMsByRun: Record<string, number>;
  /** Affected runs that had not made progress when the wait gave up. */
  stuck: string[];
}

export interface RunOutcome {
  spec: RunSpec;
  id: string;
  result?: AgentResult;
  error?: string;
}

export interface ChaosReport {
  plan: ChaosPlan;
  kills: KillRecord[];
  runs: RunOutcome[];
  requests: RecordedRequest[];
  invocations: readonly Invocation[];
  effectsPerOp: Map<string, number>;
  keysPerOp: Map<string, Set<string>>;
  elapsedMs: number;
}

export interface ChaosOptions {
  client: Client;
  address: string;
  namespace: string;
  /** A prebuilt workflow bundle with the project's workflows. */
  bundlePath: string;
  plan: ChaosPlan;
  /** How long to wait for each kill point, each recovery and the last results. */
  waitMs?: { killPoint?: number; recovery?: number; results?: number };
  log?: (line: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { client, plan, log = () => {} } = options;
  const waits = { killPoint: 90_000, recovery: 120_000, results: 180_000, ...options.waitMs };
  const rng = new Prng(plan.seed ^ 0x5eed);
  const began = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
  const taskQueue = `chaos-${plan.seed}-${crypto.randomUUID()}`;
  const byTag = new Map(plan.runs.map((run) => [run.tag, run]));
  const progress = new Map<string, number[]>(plan.runs.map((run) => [run.tag, []]));
  const ids = new Map<string, string>();
  const outcomes = new Map<string, RunOutcome>();
  const modelListeners: ((call: ModelCall) => void)[] = [];
  const note = (tag: string): void => void progress.get(tag)?.push(Date.now());

  const fake = await startFakeProvider();
  fake.respond(
    chaosResponder(plan.runs, (call) => {
      note(call.tag);
      for (const listener of modelListeners) listener(call);
    }),
  );
  const effects = await startEffectsService(() => TOOL_HOLD_MS);
  effects.onInvocation((invocation) => note(invocation.op.split('/')[0]));
  const host = workerHost({
    ...fakeProviderEnv(fake),
    [EFFECTS_URL_ENV]: effects.url,
    TEMPORAL_ADDRESS: options.address,
    TEMPORAL_NAMESPACE: options.namespace,
    DURABLE_AGENTS_TASK_QUEUE: taskQueue,
    DURABLE_AGENTS_WORKFLOW_BUNDLE: options.bundlePath,
    DURABLE_AGENTS_STORE_DIR: path.join(dir, 'store'),
    DURABLE_AGENTS_LOG_LEVEL: 'ERROR',
  });
  const agents = new AgentClient(client, taskQueue);
  const running = (tag: string): boolean => ids.has(tag) && !outcomes.has(tag);
  const approvalRuns = (): string[] => plan.runs.filter((r) => r.approval && running(r.tag)).map((r) => r.tag);
  const pendingOf = async (tag: string) => (await agents.state(ids.get(tag)!)).pendingApprovals;
  const waitingForApproval = async (): Promise<string[]> => {
    const waiting = await Promise.all(
      approvalRuns().map(async (tag) => ((await pendingOf(tag).catch(() => [])).length > 0 ? [tag] : [])),
    );
    return waiting.flat();
  };
  const events: RunEvents = {
    onModelCall: (listener) => void modelListeners.push(listener),
    onToolCall: effects.onInvocation,
    onToolAnswer: effects.onAnswer,
    waitingForApproval,
    running,
    spec: (tag) => byTag.get(tag)!,
  };

  // Approvals are given once an approval wait has been killed (at once when the plan kills none).
  let approving = !plan.kills.includes('approval_wait');
  let done = false;
  const approver = (async () => {
    while (!done) {
      if (approving)
        for (const tag of approvalRuns())
          for (const pending of await pendingOf(tag).catch(() => []))
            await agents.approve(ids.get(tag)!, pending.toolCallId, { argsHash: pending.argsHash }).catch(() => {});
      await sleep(250);
    }
  })();

  const startRun = async (spec: RunSpec): Promise<void> => {
    const id = await agents.start({
      task: taskOf(spec),
      kind: spec.kind,
      model: spec.model,
      stream: spec.stream,
      tools: { allow: ['record_step'], ...(spec.approval ? { approve: ['record_step'] } : {}) },
      ...(spec.continueAsNewAfterTurns ? { session: { continueAsNewAfterTurns: spec.continueAsNewAfterTurns } } : {}),
      ...(spec.kind === 'pev' ? { pev: { limits: { maxExecutorRounds: 3 } } } : {}),
      ...(spec.delegate ? { agents: STEPPER } : {}),
      limits: { maxTurns: 40 },
    });
    ids.set(spec.tag, id);
    // The end of a run is progress too.
    const end = (outcome: RunOutcome): void => {
      outcomes.set(spec.tag, outcome);
      note(spec.tag);
    };
    void agents.result(id).then(
      (result) => end({ spec, id, result }),
      (err: unknown) => end({ spec, id, error: String(err) }),
    );
  };
  const progressedSince = (tag: string, since: number): number | undefined => progress.get(tag)!.find((t) => t > since);

  const kills: KillRecord[] = [];
  try {
    await host.start();
    for (const [group, point] of plan.kills.entries()) {
      await Promise.all(plan.runs.filter((r) => r.group === group).map(startRun));
      const moment = await nextKillMoment(point, events, rng, waits.killPoint);
      const killedAt = Date.now();
      const toolsInFlight = new Set(effects.held().map((i) => i.op.split('/')[0]));
      const affected = [...ids.keys()].filter(
        (tag) => running(tag) && (!byTag.get(tag)!.approval || tag === moment.target || toolsInFlight.has(tag)),
      );
      await host.kill();
      await host.start();
      const restartMs = Date.now() - killedAt;
      if (point === 'approval_wait') approving = true;
      const deadline = killedAt + waits.recovery;
      const pendingRecovery = (): string[] => affected.filter((tag) => progressedSince(tag, killedAt) === undefined);
      while (pendingRecovery().length > 0 && Date.now() < deadline) await sleep(100);
      const stuck = pendingRecovery();
      const recoveryMsByRun = Object.fromEntries(
        affected.flatMap((tag) => {
          const at = progressedSince(tag, killedAt);
          return at === undefined ? [] : [[tag, at - killedAt]];
        }),
      );
      const recoveryMs =
        stuck.length > 0 || affected.length === 0 ? undefined : Math.max(...Object.values(recoveryMsByRun));
      kills.push({ point, target: moment.target, affected, restartMs, recoveryMs, recoveryMsByRun, stuck });
      log(
        `kill ${kills.length}/${plan.kills.length} ${point} (target ${moment.target}, ${affected.length} affected): ` +
          `worker back in ${(restartMs / 1000).toFixed(1)} s, ` +
          (recoveryMs === undefined
            ? `no progress from ${stuck.join(', ')}`
            : `recovered in ${(recoveryMs / 1000).toFixed(1)} s`),
      );
    }
    const deadline = Date.now() + waits.results;
    while (outcomes.size < plan.runs.length && Date.now() < deadline) await sleep(200);
  } finally {
    done = true;
    await approver;
    await host.stop();
    await effects.close();
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    plan,
    kills,
    runs: plan.runs.map(
      (spec) =>
        outcomes.get(spec.tag) ?? { spec, id: ids.get(spec.tag) ?? '', error: 'no result before the wait ended' },
    ),
    requests: fake.requests,
    invocations: effects.invocations,
    effectsPerOp: effects.effectsPerOp(),
    keysPerOp: effects.keysPerOp(),
    elapsedMs: Date.now() - began,
  };
}

/**
 * What a chaos run got wrong: runs that did not complete with their final text, requests the real
 * API would have refused (a request cut off by a kill has no status and no error), and operations
 * not applied exactly once under exactly one idempotency key.
 */
export function judge(report: ChaosReport): {
  wrongRuns: RunOutcome[];
  refused: RecordedRequest[];
  opsNotOnce: string[];
} {
  return {
    wrongRuns: report.runs.filter(
      (r) => r.result?.status !== 'completed' || r.result.finalText !== expectedFinalText(r.spec),
    ),
    refused: report.requests.filter((r) => r.error !== undefined || r.status >= 400),
    opsNotOnce: [...report.keysPerOp]
      .filter(([op, keys]) => keys.size !== 1 || report.effectsPerOp.get(op) !== 1)
      .map(([op]) => op),
  };
}

/** The activities of a run's last execution that failed or timed out, with their attempts, for a failure message. */
export async function failedActivities(client: Client, id: string): Promise<string> {
  const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const scheduled = new Map(
    events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [[String(e.eventId), e.activityTaskScheduledEventAttributes]] : [],
    ),
  );
  const attempts = new Map(
    events.flatMap((e) => {
      const started = e.activityTaskStartedEventAttributes;
      return started ? [[String(started.scheduledEventId), started.attempt ?? 0]] : [];
    }),
  );
  return events
    .flatMap((e) => {
      const ended = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
      if (!ended) return [];
      const key = String(ended.scheduledEventId);
      const type = scheduled.get(key)?.activityType?.name;
      return [`${type} failed after ${attempts.get(key)} attempts: ${ended.failure?.message}`];
    })
    .join('; ');
}
