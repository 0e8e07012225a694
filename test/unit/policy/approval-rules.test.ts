import {
  applyDecision,
  argsHash,
  callMode,
  decisionRefusal,
  expireApprovals,
} from '../../../src/policy/approval-rules';
import { canonicalJson } from '../../../src/common/canonical-json';
import type { PendingApproval } from '../../../src/contracts/approval';

const pending = (over: Partial<PendingApproval> = {}): PendingApproval => ({
  toolCallId: 'c1',
  tool: 'delete_file',
  args: { path: 'a' },
  argsHash: argsHash({ path: 'a' }),
  turn: 1,
  state: 'pending',
  ...over,
});

describe('approvals', () => {
  it('hashes arguments independently of key order and distinguishes values', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: null } })).toBe('{"a":{"c":null,"d":[1,2]},"b":1}');
    expect(argsHash({ a: 1, b: 2 })).toBe(argsHash({ b: 2, a: 1 }));
    expect(argsHash({ a: 1 })).not.toBe(argsHash({ a: 2 }));
    expect(argsHash({ path: '/tmp/x' })).toMatch(/^[0-9a-f]{14}$/);
  });

  it('refuses unknown, decided and mismatched decisions, accepts a bound one', () => {
    const list = [pending(), pending({ toolCallId: 'c2', state: 'approved' })];
    const hash = list[0].argsHash;
    expect(decisionRefusal(list, { toolCallId: 'nope', argsHash: hash, decision: 'approve' })).toMatch(
      /no approval is pending/,
    );
    expect(decisionRefusal(list, { toolCallId: 'c2', argsHash: list[1].argsHash, decision: 'reject' })).toMatch(
      /already approved/,
    );
    expect(decisionRefusal(list, { toolCallId: 'c1', argsHash: 'deadbeef', decision: 'approve' })).toMatch(/differ/);
    expect(decisionRefusal(list, { toolCallId: 'c1', argsHash: hash, decision: 'reject', editedArgs: {} })).toMatch(
      /only go with an approval/,
    );
    expect(
      decisionRefusal(list, {
        toolCallId: 'c1',
        argsHash: hash,
        decision: 'approve',
        editedArgs: [] as unknown as Record<string, unknown>,
      }),
    ).toMatch(/JSON object/);
    expect(decisionRefusal(list, { toolCallId: 'c1', argsHash: hash, decision: 'maybe' as 'approve' })).toMatch(
      /approve" or "reject/,
    );
    expect(decisionRefusal(list, { toolCallId: 'c1', argsHash: hash, decision: 'approve' })).toBeUndefined();
    const applied = applyDecision(list, {
      toolCallId: 'c1',
      argsHash: hash,
      decision: 'approve',
      editedArgs: { path: 'b' },
    });
    expect(applied).toMatchObject({ state: 'approved', decidedBy: 'user', editedArgs: { path: 'b' } });
  });

  it('expires only pending approvals, as readable rejections', () => {
    const list = [pending(), pending({ toolCallId: 'c2', state: 'approved' })];
    expect(expireApprovals(list, 24 * 3_600_000).map((a) => a.toolCallId)).toEqual(['c1']);
    expect(list[0]).toMatchObject({ state: 'rejected', decidedBy: 'timeout', reason: 'no decision within 24 h' });
    expect(list[1].state).toBe('approved');
  });

  it('decides the mode of a call in one place: own mode, approve list and rules', () => {
    const run = { rules: [{ tool: 'fs_write', when: [{ path: 'path', matches: '^/etc/' }] }, { tool: 'shell_*' }] };
    const server = (name: string) => ({ name, mode: 'server' as const });
    expect(callMode(server('fs_write'), { path: '/etc/passwd' }, run)).toBe('approval');
    expect(callMode(server('fs_write'), { path: '/tmp/x' }, run)).toBe('server');
    expect(callMode(server('shell_run'), {}, run)).toBe('approval');
    expect(callMode({ name: 'shell_run', mode: 'client' }, {}, run)).toBe('client');
    expect(callMode(server('fs_read'), {}, { ...run, approve: ['fs_*'] })).toBe('approval');
    expect(callMode({ name: 'fs_read', mode: 'client' }, {}, { approve: ['*'] })).toBe('client');
    const pay = (when: object) => ({ rules: [{ tool: 'pay', when: [{ path: 'opts.amount', ...when }] }] });
    expect(callMode(server('pay'), { opts: { amount: 5 } }, pay({ exists: true }))).toBe('approval');
    expect(callMode(server('pay'), { opts: { amount: 6 } }, pay({ equals: 5 }))).toBe('server');
  });
});
