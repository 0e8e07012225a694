/**
 * The pace of a limited queue as the server keeps it, beside the queue's rate (docs/fleet.md, The
 * fleet learns a provider's limit): the rate its model calls are handed out at, a 429's pause, and
 * a rate learned from refusals. A refusal of a call handed out at the rate in force cuts that rate
 * to {@link CUT} of it; a learned rate then rises by {@link RISE_PER_MINUTE} of itself each minute,
 * never above the configured limit. The reason text is the state, so every worker reads the same.
 * Pure: the server's reads and writes are in `queue-rate.ts`.
 */

/** The share of the rate in force that a refusal leaves. */
export const CUT = 0.7;

/** How fast a learned rate rises: this share of it a minute, and at least one model call a minute more each minute. */
export const RISE_PER_MINUTE = 0.1;

/** The lowest rate a cut leaves (model calls a minute). */
export const MIN_RPM = 1;

/** The retry-after a refusal is taken to ask for when it names none. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/** A limited queue's pace. */
export interface QueuePace {
  /** Model calls a minute: the queue's rate (after a pause, the one it gets back; learned, the one it rises from). */
  requestsPerMinute: number;
  /** While a 429 holds the queue (rate 0): until when, ms since the epoch. */
  pausedUntil?: number;
  /** For a rate learned from a 429: since when it applies (the end of that 429's pause). */
  learnedSince?: number;
  /** The configured rate a learned one rises back to; absent when none is configured. */
  upTo?: number;
}

/** A provider's refusal of one model call, as the worker that made the call saw it. */
export interface Refusal {
  /** When the refusal came back. */
  at: number;
  /** What the provider asked to wait. */
  retryAfterMs: number;
  /** When the refused call began on the worker. */
  callStartedAt: number;
  /** Calls of the queue this worker saw accepted over the last `retryAfterMs` (or second). */
  acceptedRecently: number;
}

const round = (n: number): number => Math.round(n * 1000) / 1000;
const iso = (ms: number): string => new Date(ms).toISOString();

/** The text the server keeps as the reason of the queue's rate. */
export function paceReason(pace: QueuePace): string {
  const paused = pace.pausedUntil === undefined ? '' : `paused until ${iso(pace.pausedUntil)} after a 429, then `;
  const learned = pace.learnedSince === undefined ? '' : ` learned since ${iso(pace.learnedSince)}`;
  const upTo = pace.upTo === undefined ? '' : `, up to ${round(pace.upTo)}`;
  return `durable-agents: ${paused}${round(pace.requestsPerMinute)} model calls a minute${learned}${upTo}`;
}

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const PACE_REASON = new RegExp(
  String.raw`^durable-agents: (?:paused until (\S+) after a 429, then )?${NUMBER} model calls a minute` +
    String.raw`(?: learned since (\S+))?(?:, up to ${NUMBER})?$`,
);

/** The pace a queue's rate reason records, if it records one. */
export function parsePace(reason: string | null | undefined): QueuePace | undefined {
  const match = PACE_REASON.exec(reason ?? '');
  if (!match) return undefined;
  const [, paused, rpm, learned, upTo] = match;
  const pausedUntil = paused === undefined ? undefined : Date.parse(paused);
  const learnedSince = learned === undefined ? undefined : Date.parse(learned);
  if (Number.isNaN(pausedUntil) || Number.isNaN(learnedSince)) return undefined;
  return {
    requestsPerMinute: Number(rpm),
    ...(pausedUntil === undefined ? {} : { pausedUntil }),
    ...(learnedSince === undefined ? {} : { learnedSince }),
    ...(upTo === undefined ? {} : { upTo: Number(upTo) }),
  };
}

/** The queue's rate at `now` leaving any pause aside: a learned rate risen since it was learned. */
export function pacedRate(pace: QueuePace, now: number): number {
  const { requestsPerMinute: rpm, learnedSince, upTo } = pace;
  if (learnedSince === undefined) return rpm;
  const minutes = Math.max(0, now - learnedSince) / 60_000;
  return round(Math.min(upTo ?? Infinity, rpm + Math.max(rpm * RISE_PER_MINUTE, 1) * minutes));
}

/** The rate the server should enforce at `now`: 0 during a pause, else {@link pacedRate}. */
export const rateAt = (pace: QueuePace, now: number): number =>
  pace.pausedUntil !== undefined && pace.pausedUntil > now ? 0 : pacedRate(pace, now);

/**
 * The pace to keep at `now`: without a pause that is over, and a learned rate that has risen back
 * to its configured limit is that limit again.
 */
export function paceAt(pace: QueuePace, now: number): QueuePace {
  const { pausedUntil, ...running } = pace;
  const paused = pausedUntil !== undefined && pausedUntil > now;
  const kept: QueuePace = paused ? pace : running;
  if (!paused && kept.learnedSince !== undefined && kept.upTo !== undefined && pacedRate(kept, now) >= kept.upTo)
    return { requestsPerMinute: kept.upTo };
  return kept;
}

/**
 * The pace after a refusal, or undefined when it changes nothing. A queue with no pace (no limit) is
 * taken to run at what the provider accepted over the retry-after period, at least one call. A call
 * handed out before the pace that the last refusal set took effect says nothing about that pace: it
 * only lengthens the pause; any other refusal cuts the rate in force to {@link CUT} of it, learned
 * from the end of the new pause.
 */
export function afterRefusal(pace: QueuePace | undefined, refusal: Refusal): QueuePace | undefined {
  const until = refusal.at + refusal.retryAfterMs;
  const settled = Math.max(pace?.learnedSince ?? -Infinity, pace?.pausedUntil ?? -Infinity);
  if (pace && refusal.callStartedAt < settled) {
    if (pace.pausedUntil !== undefined && pace.pausedUntil >= until) return undefined;
    return { ...pace, pausedUntil: until };
  }
  const window = Math.max(refusal.retryAfterMs, 1_000);
  const inForce = pace ? pacedRate(pace, refusal.at) : (Math.max(1, refusal.acceptedRecently) * 60_000) / window;
  const pausedUntil = Math.max(until, pace?.pausedUntil ?? -Infinity);
  const upTo = pace === undefined ? undefined : pace.learnedSince === undefined ? pace.requestsPerMinute : pace.upTo;
  return {
    requestsPerMinute: Math.max(MIN_RPM, round(inForce * CUT)),
    pausedUntil,
    learnedSince: pausedUntil,
    ...(upTo === undefined ? {} : { upTo }),
  };
}
