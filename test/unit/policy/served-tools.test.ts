import type { EvalSpec } from '../../../src/contracts/eval-spec';
import { argsHash } from '../../../src/policy/approval-rules';
import type { PendingApproval } from '../../../src/contracts/approval';
import {
  NO_EVAL_DECISION,
  childEvalOf,
  countChild,
  decideByEval,
  emptyTally,
  evalSpecProblems,
  evalTally,
  serveCall,
  totalDrift,
} from '../../../src/policy/served-tools';
import { runSpec } from '../../kit/run-spec';
import { runSpecProblems } from '../../../src/policy/run-spec-problems';

const call = (tool: string, args: Record<string, unknown>, sideEffects = true) => ({
  tool,
  args,
  sideEffects,
  turn: 1,
});

describe('serveCall', () => {
  it('answers by tool, canonical arguments and ordinal: key order does not matter, each call takes the next result', () => {
    const spec: EvalSpec = {
      served: [{ tool: 'send', args: { to: 'a', body: 'b' }, results: [{ text: 'one' }, { text: 'two' }] }],
    };
    const tally = emptyTally();
    expect(serveCall(spec, tally, call('send', { body: 'b', to: 'a' }))).toEqual({
      type: 'served',
      result: { text: 'one', isError: false },
    });
    expect(serveCall(spec, tally, call('send', { to: 'a', body: 'b' }))).toEqual({
      type: 'served',
      result: { text: 'two', isError: false },
    });
    expect(serveCall(spec, tally, call('send', { to: 'a', body: 'b' })).type).toBe('drift');
    expect(evalTally(tally)).toMatchObject({ served: 2, drift: 1 });
  });

  it('a row by hash, a row for any arguments as the fallback, and repeat', () => {
    const spec: EvalSpec = {
      served: [
        { tool: 'get', argsHash: argsHash({ id: 1 }), results: [{ throws: 'gone' }] },
        { tool: 'get', results: [{ text: 'any' }], repeat: true },
      ],
    };
    const tally = emptyTally();
    expect(serveCall(spec, tally, call('get', { id: 1 }))).toEqual({
      type: 'served',
      result: { text: 'Tool "get" failed: gone', isError: true },
    });
    expect(serveCall(spec, tally, call('get', { id: 1 }))).toMatchObject({ result: { text: 'any' } });
    expect(serveCall(spec, tally, call('get', { id: 2 }))).toMatchObject({ result: { text: 'any' } });
    expect(tally.served).toBe(3);
  });

  it('an unmatched read runs live only with liveReads; a tool with side effects is drift either way', () => {
    const tally = emptyTally();
    expect(serveCall({ served: [], liveReads: true }, tally, call('read', {}, false)).type).toBe('live');
    expect(serveCall({ served: [] }, tally, call('read', {}, false)).type).toBe('drift');
    expect(serveCall({ served: [], liveReads: true }, tally, call('write', {}, true)).type).toBe('drift');
    expect(evalTally(tally)).toEqual({
      served: 0,
      live: 1,
      drift: 2,
      driftCalls: [
        { tool: 'read', argsHash: argsHash({}), turn: 1 },
        { tool: 'write', argsHash: argsHash({}), turn: 1 },
      ],
    });
  });
});

describe('decideByEval', () => {
  const pending = (toolCallId: string, tool: string): PendingApproval => ({
    toolCallId,
    tool,
    args: {},
    argsHash: argsHash({}),
    turn: 1,
    state: 'pending',
  });

  it('gives a named tool its decision and rejects any other call, leaving decided ones alone', () => {
    const approvals = [pending('1', 'send'), pending('2', 'delete'), pending('3', 'drop'), pending('4', 'send')];
    approvals[3].state = 'rejected';
    const decided = decideByEval(
      {
        served: [],
        decisions: [
          { tool: 'send', decision: 'approve' },
          { tool: 'delete', decision: 'reject', reason: 'not in this case' },
        ],
      },
      approvals,
    );
    expect(decided.map((a) => a.toolCallId)).toEqual(['1', '2', '3']);
    expect(approvals.map(({ state, decidedBy, reason }) => ({ state, decidedBy, reason }))).toEqual([
      { state: 'approved', decidedBy: 'eval', reason: undefined },
      { state: 'rejected', decidedBy: 'eval', reason: 'not in this case' },
      { state: 'rejected', decidedBy: 'eval', reason: NO_EVAL_DECISION },
      { state: 'rejected', decidedBy: undefined, reason: undefined },
    ]);
  });

  it('leaves the approvals to people when the record carries no decisions, or there is no record', () => {
    const approvals = [pending('1', 'send')];
    expect(decideByEval({ served: [] }, approvals)).toEqual([]);
    expect(decideByEval(undefined, approvals)).toEqual([]);
    expect(approvals[0].state).toBe('pending');
  });
});

describe('evalSpecProblems', () => {
  it('names each malformed row', () => {
    expect(
      evalSpecProblems({
        served: [
          { tool: '', results: [] },
          { tool: 'x', results: [{ text: 1 }] },
        ],
        liveReads: 'yes',
        decisions: [{ tool: 'x', decision: 'maybe' }],
      } as never),
    ).toEqual([
      'eval.served[0] needs the tool it answers',
      'eval.served[1].results[0] needs text (or throws)',
      'eval.decisions must be a list of { tool, decision: "approve" | "reject", reason? }',
      'eval.liveReads must be true or false',
    ]);
    expect(evalSpecProblems(undefined)).toEqual([]);
  });
});

describe('the eval record in the run spec', () => {
  it('is layered like any record and checked with the others', () => {
    const spec = runSpec({
      task: 't',
      model: 'anthropic/claude-sonnet-4-6',
      eval: { served: [{ tool: 'x', results: [] }] },
    });
    expect(spec.eval).toEqual({ served: [{ tool: 'x', results: [] }] });
    expect(runSpecProblems(spec)).toEqual(['eval.served[0] needs at least one result']);
  });
});

describe("a sub-agent call's eval record", () => {
  const task = { task: 'Remove old.md.' };
  const child = (text: string): EvalSpec => ({ served: [{ tool: 'delete_file', results: [{ text }] }] });
  const spec: EvalSpec = {
    served: [{ tool: 'add', results: [{ text: '3' }] }],
    liveReads: true,
    decisions: [{ tool: 'delete_file', decision: 'approve' }],
    followUps: ['Again.'],
    children: [{ agent: 'researcher', argsHash: argsHash(task), runs: [child('first'), child('second')] }],
  };

  it("is the recorded child's own table, by agent, arguments and ordinal; an unrecorded call gets an empty one", () => {
    const tally = emptyTally();
    const inherited = { liveReads: true, decisions: spec.decisions };
    expect(childEvalOf(spec, tally, 'researcher', task)).toEqual({ ...inherited, ...child('first'), children: [] });
    expect(childEvalOf(spec, tally, 'researcher', task)).toEqual({ ...inherited, ...child('second'), children: [] });
    expect(childEvalOf(spec, tally, 'researcher', task)).toEqual({ ...inherited, served: [], children: [] });
    expect(childEvalOf(spec, tally, 'researcher', { task: 'other' })).toEqual({
      ...inherited,
      served: [],
      children: [],
    });
  });

  it("is the parent's record without its follow-ups when it names no recorded children", () => {
    const { children: _children, ...authored } = spec;
    expect(childEvalOf(authored, emptyTally(), 'researcher', task)).toEqual({
      served: authored.served,
      liveReads: true,
      decisions: spec.decisions,
    });
  });

  it("counts each ended child's drift, its own children's included, in the parent's", () => {
    const tally = emptyTally();
    countChild(
      tally,
      { id: 'p/researcher-1', agent: 'researcher' },
      { ...emptyTally(), served: 2, drift: 1, childDrift: 2 },
    );
    countChild(tally, { id: 'p/researcher-2', agent: 'researcher' }, { ...emptyTally(), served: 1, drift: 0 });
    tally.drift = 1;
    expect(totalDrift(tally)).toBe(4);
    expect(tally.children).toEqual([
      { id: 'p/researcher-1', agent: 'researcher', served: 2, drift: 3 },
      { id: 'p/researcher-2', agent: 'researcher', served: 1, drift: 0 },
    ]);
  });

  it('refuses malformed recorded children, naming where', () => {
    expect(
      evalSpecProblems({ served: [], children: [{ agent: 'r', argsHash: 'h', runs: [{ served: 'x' }] }] } as never),
    ).toEqual(['eval.children[0].runs[0].served must be a list of served calls']);
    expect(evalSpecProblems({ served: [], children: [{ agent: 'r' }] } as never)).toEqual([
      "eval.children[0] needs the agent, the arguments' hash and the runs",
    ]);
  });
});
