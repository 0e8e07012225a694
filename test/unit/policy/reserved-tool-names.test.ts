import { BUILTIN_TOOL_NAMES, reservedNameProblems } from '../../../src/policy/reserved-tool-names';
import { builtinTools } from '../../../src/tools/builtin';

describe('reservedNameProblems', () => {
  it("refuses a sub-agent named like a worker's built-in tool or a workflow's tool, one line each", () => {
    const spec = { description: 'Reads.' };
    expect(reservedNameProblems({ fs_read: spec, researcher: spec, update_plan: spec })).toEqual([
      `sub-agent "fs_read" is named like the worker's built-in tool fs_read: give the sub-agent another name`,
      `sub-agent "update_plan" is named like the workflow's own tool update_plan: give the sub-agent another name`,
    ]);
  });

  it('has nothing to say of a run without sub-agents', () => {
    expect(reservedNameProblems(undefined)).toEqual([]);
  });

  it('names every built-in tool the worker can have', () => {
    const all = builtinTools({ webSearch: { name: 'test', search: async () => [] } }).map((t) => t.name);
    expect([...BUILTIN_TOOL_NAMES].sort()).toEqual(all.sort());
  });
});
