import { runSpec } from '../../kit/run-spec';
import { runSpecProblems } from '../../../src/policy/run-spec-problems';
import { rangeProblem } from '../../../src/common/decimal';
import { TENANT_WEIGHT, priorityProblem, runPriority, tenantProblem } from '../../../src/policy/tenancy';

describe('tenancy', () => {
  it('a tenant is a short plain key', () => {
    expect(tenantProblem('acme')).toBeUndefined();
    expect(tenantProblem('team-7.eu:ops@corp')).toBeUndefined();
    expect(tenantProblem('two words')).toMatch(/not a valid key/);
    expect(tenantProblem('-leading')).toMatch(/not a valid key/);
    expect(tenantProblem('x'.repeat(65))).toMatch(/not a valid key/);
    expect(tenantProblem('')).toMatch(/not a valid key/);
  });

  it('a priority is a whole number from 1 to 5', () => {
    expect([1, 3, 5].map(priorityProblem)).toEqual([undefined, undefined, undefined]);
    expect(priorityProblem(0)).toMatch(/from 1 \(first\) to 5 \(last\)/);
    expect(priorityProblem(6)).toMatch(/got 6/);
    expect(priorityProblem(2.5)).toMatch(/whole number/);
  });

  it('a weight is a number from 0.001 to 1000', () => {
    const weightProblem = (w: number) => rangeProblem(w, TENANT_WEIGHT);
    expect(weightProblem(0.5)).toBeUndefined();
    expect(weightProblem(0)).toBe('must be a number from 0.001 to 1000, got 0');
    expect(weightProblem(-2)).toMatch(/from 0.001 to 1000, got -2$/);
    expect(weightProblem(1e-300)).toMatch(/from 0.001 to 1000, got 1e-300$/);
  });

  it("a run's tenant is its fairness key and its priority its priority key; a run with neither has none", () => {
    expect(runPriority({ tenant: 'acme', priority: 2 })).toEqual({ fairnessKey: 'acme', priorityKey: 2 });
    expect(runPriority({ priority: 1 })).toEqual({ priorityKey: 1 });
    expect(runPriority({ tenant: 'acme' })).toEqual({ fairnessKey: 'acme' });
    expect(runPriority({})).toBeUndefined();
  });

  it('the run config carries tenant and priority, and its problems name bad ones', () => {
    const config = runSpec({
      fleet: { priority: 4, tenant: 'acme' },
      task: 'Hi.',
      model: 'anthropic/claude-sonnet-4-6',
    });
    expect(config.fleet).toEqual({ tenant: 'acme', priority: 4 });
    expect(runSpecProblems(config)).toEqual([]);
    const bad = runSpec({ fleet: { priority: 9, tenant: 'a b' }, task: 'Hi.', model: 'anthropic/claude-sonnet-4-6' });
    expect(runSpecProblems(bad)).toEqual([expect.stringMatching(/tenant "a b"/), expect.stringMatching(/got 9/)]);
  });
});
