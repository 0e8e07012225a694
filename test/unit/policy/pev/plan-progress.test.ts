import type { PevProgress, PevTodo } from '../../../../src/contracts/pev-progress';
import { planProgressDetails, todoLine } from '../../../../src/policy/pev/plan-progress';

const todo = (id: string, status: PevTodo['status'], description: string): PevTodo => ({
  id,
  description,
  priority: 1,
  status,
  rounds: 0,
  cycle: 1,
});

const progress = (todos: PevTodo[], rest: Partial<PevProgress> = {}): PevProgress => ({
  phase: 'executing',
  cycle: 1,
  round: 1,
  todos,
  improvements: [],
  trace: [],
  ...rest,
});

describe("a pev run's plan progress", () => {
  it('counts the todos that ended and lists each with its status and description, marking the current one', () => {
    const text = planProgressDetails(
      progress(
        [
          todo('task-1', 'completed', 'Read README.md'),
          todo('task-2', 'executing', 'Sum the $5 and $10 items'),
          todo('task-3', 'pending', 'Write the report'),
        ],
        { currentTodoId: 'task-2' },
      ),
    );
    expect(text).toBe(
      [
        '**Plan** · 1 of 3 todos done',
        '',
        '- [completed] task-1: Read README.md',
        '- [executing] task-2: Sum the \\$5 and \\$10 items ← now',
        '- [pending] task-3: Write the report',
      ].join('\n'),
    );
  });

  it('says nothing before there is a plan, names the cycle after the first, and counts todos beyond twenty', () => {
    expect(planProgressDetails(progress([]))).toBeUndefined();
    const many = Array.from({ length: 23 }, (_, i) => todo(`t${i}`, 'skipped', `Step ${i}`));
    const text = planProgressDetails(progress(many, { cycle: 2 }))!;
    expect(text.split('\n')[0]).toBe('**Plan** · 23 of 23 todos done · cycle 2');
    expect(text).toMatch(/- \[skipped\] t19: Step 19\n- and 3 more$/);
  });

  it('names the call a todo makes', () => {
    const t = { ...todo('a', 'pending', 'Read'), call: { tool: 'fs_read', parameters: { path: 'a' } } };
    expect(todoLine(t)).toBe('[pending] a: Read (calls fs_read)');
  });
});
