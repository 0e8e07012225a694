/**
 * `durable-agents score ID [NAME VALUE] [--comment TEXT]` (docs/evals.md, Scores on production
 * runs): gives a run, open or closed, a score under a name, or lists its scores. A score is
 * indexed at once, so `eval replay --query` can select a cohort by it.
 */
import { whileOpen } from '../../common/while-open';
import type { Command } from 'commander';
import { json } from './agent-deps';
import { connectAgents, type GlobalOptions } from '../cli-context';
import { UsageError } from '../exit-codes';
import { printLine, printNotice } from '../terminal-text';
import type { RunScore } from '../../contracts/run-scores';

const line = (s: RunScore): string =>
  `${s.name} = ${s.value}${s.comment ? ` (${s.comment.split('\n')[0]})` : ''}, given ${s.at}`;

/** A score's value as typed: a number, nothing else. */
function scoreValue(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new UsageError(`score value "${text}": give a number, e.g. 0.8`);
  return value;
}

export function registerScoreCommand(program: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  program
    .command('score')
    .description(
      "Give a run (open or closed) a score under a name, replacing the name's earlier score; with the id alone, " +
        "list its scores. Runs are selected by score with `eval replay --query \"DurableAgentScoreName = 'NAME' " +
        'AND DurableAgentScore < 0.5"`.',
    )
    .argument('<id>', 'the run')
    .argument('[name]', 'what is scored: letters, digits, _, - and . (e.g. helpful)')
    .argument('[value]', 'the score, a number')
    .option('--comment <text>', 'why')
    .option('--json', 'print as JSON')
    .action(async (id: string, name: string | undefined, value: string | undefined, flags) => {
      const { comment, json: asJson } = flags as { comment?: string; json?: boolean };
      if (name !== undefined && value === undefined) throw new UsageError(`score ${name}: give its value too`);
      const given = value === undefined ? undefined : scoreValue(value);
      await whileOpen(connectAgents(globals(), env, printNotice), async ({ agents }) => {
        if (name !== undefined && given !== undefined) {
          const score = await agents.score(id, name, given, comment ? { comment } : {});
          return printLine(asJson ? json(score) : `scored ${id}: ${line(score)}`);
        }
        const scores = await agents.scores(id);
        printLine(asJson ? json(scores) : scores.length ? scores.map(line).join('\n') : `run ${id} has no scores`);
      });
    });
}
