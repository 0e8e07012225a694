/**
 * `durable-agents/workflow` publishes a curated list: what a kind's workflow code needs, by name,
 * types included, and nothing of the internals (no `export *`).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../kit/env';

const ENTRY = path.join(REPO_ROOT, 'src', 'workflow.ts');
const MAX_NAMES = 60;

/** The names a module exports, as the compiler resolves them (values and types). */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`cannot read ${file}`);
  const symbol = checker.getSymbolAtLocation(source);
  return symbol ? checker.getExportsOfModule(symbol).map((s) => s.getName()) : [];
}

describe('durable-agents/workflow', () => {
  const names = exportedNames(ENTRY);

  it(`exports at most ${MAX_NAMES} names, each one by name`, () => {
    expect(names.length).toBeGreaterThan(10);
    expect(names.length).toBeLessThanOrEqual(MAX_NAMES);
    expect(fs.readFileSync(ENTRY, 'utf8')).not.toMatch(/export \*/);
  });

  it('gives a kind author the scaffold, the turn and the steps of a driver', () => {
    for (const name of ['runAgent', 'agentTurn', 'startConversation', 'finish', 'AgentKind', 'TurnHooks', 'RunContext'])
      expect(names).toContain(name);
  });
});
