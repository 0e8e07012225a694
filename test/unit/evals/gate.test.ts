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

  it('names a clause it cannot read', () => {
    expect(parseGate('pass>=0.95,speed<1')).toEqual({
      problem: 'gate clause "speed<1": unknown figure "speed"; known: pass, cost, tokens, turns, latency, drift',
    });
    expect(parseGate('pass=>1')).toEqual({
      problem: 'gate clause "pass=>1" is not METRIC OP NUMBER (e.g. pass>=0.95, cost<=1.1x, drift==0)',
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
    expect(xml).toContain('<testsuites name="durable-agents eval" tests="2" failures="1" errors="0" time="3.000">');
    expect(xml).toContain('<testcase name="a &amp; b" classname="durable-agents eval" time="1.500">');
    expect(xml).toContain(
      '<failure message="says &lt;ok&gt; &amp; &quot;done&quot;: no match" type="grader">says &lt;ok&gt; &amp; &quot;done&quot;: no match</failure>',
    );
  });
});
