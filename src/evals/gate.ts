/**
 * An eval's gate (docs/evals.md): clauses over its summary such as `pass>=0.95,cost<=1.1x,drift==0`;
 * a value with `x` is a ratio of the baseline's figure. The gate holds when every clause does.
 */
import type { EvalSummary } from './suite';

const METRICS = {
  pass: 'pass',
  cost: 'costUsd',
  tokens: 'tokens',
  turns: 'turns',
  latency: 'latencyMs',
  drift: 'drift',
  judgeCost: 'judgeCostUsd',
  judgeScore: 'judgeScore',
} as const satisfies Record<string, keyof EvalSummary>;
type Metric = keyof typeof METRICS;
type Op = '>=' | '<=' | '==' | '>' | '<';

export interface GateClause {
  text: string;
  metric: Metric;
  op: Op;
  value: number;
  /** The value is a ratio of the baseline's figure. */
  ratio: boolean;
}

/** The clauses of a gate, or the one line saying what is wrong with it. */
export function parseGate(spec: string): { clauses: GateClause[] } | { problem: string } {
  const clauses: GateClause[] = [];
  for (const raw of spec.split(',')) {
    const text = raw.trim();
    const m = /^([a-zA-Z]+)\s*(>=|<=|==|>|<)\s*(\d+(?:\.\d+)?)(x?)$/.exec(text);
    if (!m) return { problem: `gate clause "${text}" is not METRIC OP NUMBER (e.g. pass>=0.95, cost<=1.1x, drift==0)` };
    if (!(m[1] in METRICS))
      return { problem: `gate clause "${text}": unknown figure "${m[1]}"; known: ${Object.keys(METRICS).join(', ')}` };
    clauses.push({ text, metric: m[1] as Metric, op: m[2] as Op, value: Number(m[3]), ratio: m[4] === 'x' });
  }
  return { clauses };
}

const holds = (a: number, op: Op, b: number): boolean =>
  op === '>=' ? a >= b : op === '<=' ? a <= b : op === '==' ? a === b : op === '>' ? a > b : a < b;

/** Clauses that need a baseline's figures. */
export const needsBaseline = (clauses: readonly GateClause[]): boolean => clauses.some((c) => c.ratio);

/** The clauses that fail, each with the figure it read: empty when the gate holds. */
export function gateFailures(clauses: readonly GateClause[], summary: EvalSummary, baseline?: EvalSummary): string[] {
  return clauses.flatMap((c) => {
    const key = METRICS[c.metric];
    const actual = summary[key];
    const limit = c.ratio ? c.value * (baseline?.[key] ?? NaN) : c.value;
    if (holds(actual, c.op, limit)) return [];
    const against = c.ratio ? ` (${c.value}x the baseline's ${round(baseline?.[key] ?? NaN)})` : '';
    return [`${c.text}: ${c.metric} is ${round(actual)}${against}`];
  });
}

const round = (n: number): string => String(Math.round(n * 10_000) / 10_000);
