import { gateFailures, junitXml, parseGate, summarize, type CaseOutcome, type EvalSummary } from '../../../src/evals';

const summary: EvalSummary = {
  cases: 20,
  passed: 19,
  pass: 0.95,
  costUsd: 1.2,
  tokens: 900,
  turns: 60,
  latencyMs: 800,
  drift: 0,
  judgeCostUsd: 0.03,
  judgeTokens: 1200,
  judgeScore: 0.8,
};

const clauses = (spec: string) => {
  const read = parseGate(spec);
  if ('problem' in read) throw new Error(read.problem);
  return read.clauses;
};

describe('the gate', () => {
  it('holds when every clause does; ratios read the baseline', () => {
    expect(gateFailures(clauses('pass>=0.95,drift==0'), summary)).toEqual([]);
    expect(gateFailures(clauses('pass>0.95, cost<=1.1x'), summary, { ...summary, costUsd: 1 })).toEqual([
      'pass>0.95: pass is 0.95',
      "cost<=1.1x: cost is 1.2 (1.1x the baseline's 1)",
    ]);
    expect(gateFailures(clauses('turns<=1.0x'), summary, { ...summary, turns: 60 })).toEqual([]);
  });

  it("reads the judge's cost and mean score apart from the cases' own", () => {
    expect(gateFailures(clauses('judgeCost<=0.05,judgeScore>=0.8,cost<=1.2'), summary)).toEqual([]);
    expect(
      gateFailures(clauses('judgeCost<=1.1x,judgeScore>=0.9'), summary, { ...summary, judgeCostUsd: 0.02 }),
    ).toEqual(["judgeCost<=1.1x: judgeCost is 0.03 (1.1x the baseline's 0.02)", 'judgeScore>=0.9: judgeScore is 0.8']);
  });

  it('names a clause it cannot read', () => {
    expect(parseGate('pass>=0.95,speed<1')).toEqual({
      problem:
        'gate clause "speed<1": unknown figure "speed"; known: pass, cost, tokens, turns, latency, drift, judgeCost, judgeScore',
    });
    expect(parseGate('pass=>1')).toEqual({
      problem: 'gate clause "pass=>1" is not METRIC OP NUMBER (e.g. pass>=0.95, cost<=1.1x, drift==0)',
    });
  });
});

describe('the summary', () => {
  it("sums the judge's tokens and cost apart from the cases' and averages its scores over the cases it scored", () => {
    const base = { id: 'r', graders: [], stopReason: 'completed' as const, turns: 1, latencyMs: 1, drift: 0 };
    const judge = (score: number | undefined) => ({
      id: 'j',
      pass: score !== undefined,
      ...(score === undefined ? {} : { score }),
      reason: 'r',
      tokens: 100,
      costUsd: 0.01,
    });
    const cases: CaseOutcome[] = [
      { ...base, name: 'a', pass: true, tokens: 10, costUsd: 1, judge: judge(1) },
      { ...base, name: 'b', pass: true, tokens: 10, costUsd: 1, judge: judge(0.5) },
      { ...base, name: 'c', pass: false, tokens: 10, costUsd: 1, judge: judge(undefined) },
      { ...base, name: 'd', pass: true, tokens: 10, costUsd: 1 },
    ];
    expect(summarize(cases)).toMatchObject({
      costUsd: 4,
      tokens: 40,
      judgeCostUsd: 0.03,
      judgeTokens: 300,
      judgeScore: 0.75,
    });
  });
});

describe('the JUnit report', () => {
  const outcome = (name: string, pass: boolean): CaseOutcome => ({
    name,
    id: `run-${name}`,
    pass,
    graders: pass ? [] : [{ name: 'says <ok> & "done"', pass: false, message: 'no\u0007 match' }],
    ...(pass ? {} : { failed: { name: 'says <ok> & "done"', pass: false, message: 'no\u0007 match' } }),
    stopReason: 'completed',
    turns: 2,
    tokens: 10,
    costUsd: 0,
    latencyMs: 1500,
    drift: 0,
  });

  it('escapes names and messages and drops the characters XML forbids', () => {
    const cases = [outcome('a & b', true), outcome('c', false)];
    const xml = junitXml({ summary: summarize(cases), cases });
    expect(summarize(cases)).toMatchObject({ judgeCostUsd: 0, judgeTokens: 0, judgeScore: 0 });
    expect(xml).toContain('<testsuites name="durable-agents eval" tests="2" failures="1" errors="0" time="3.000">');
    expect(xml).toContain('<testcase name="a &amp; b" classname="durable-agents eval" time="1.500">');
    expect(xml).toContain(
      '<failure message="says &lt;ok&gt; &amp; &quot;done&quot;: no match" type="grader">says &lt;ok&gt; &amp; &quot;done&quot;: no match</failure>',
    );
  });
});
