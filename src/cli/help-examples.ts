/**
 * The examples `--help` shows under a command's options: each command's description and options
 * are where it is registered, its examples are here, added to whichever commands a program has.
 */
import type { Command } from 'commander';

/** Examples by command path (`schedule create`): a line of what it does, then the command. */
export const HELP_EXAMPLES: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  run: [
    [
      'a task on a model, with the files of ./notes',
      'durable-agents run --model anthropic/claude-sonnet-4-6 --workspace ./notes "Summarise the notes"',
    ],
    [
      'ask before each write; return at once with the run id',
      'durable-agents run --approve fs_write --detach --model openai/gpt-4.1-mini "Tidy README.md"',
    ],
    ['plan, execute and verify, capped at $0.50', 'durable-agents run --agent pev --max-cost 0.5 --task-file task.md'],
  ],
  watch: [
    ['follow a run as it works, its sub-agents under their calls', 'durable-agents watch ID'],
    ['events only, one JSON object per line', 'durable-agents watch ID --no-tokens --json'],
  ],
  approve: [
    ['see the waiting calls, then approve one', 'durable-agents approvals\ndurable-agents approve ID toolu_01'],
    [
      'approve with edited arguments, without the question',
      'durable-agents approve ID toolu_01 --args \'{"path":"notes/draft.md"}\' --yes',
    ],
  ],
  'schedule create': [
    [
      'a digest every weekday at 09:00 UTC',
      'durable-agents schedule create digest --cron "0 9 * * MON-FRI" --model anthropic/claude-sonnet-4-6 ' +
        '"Summarise yesterday\'s tickets"',
    ],
    [
      'every 30 minutes, created paused',
      'durable-agents schedule create poll --every 30m --paused --note "until Monday" --task-file poll.md',
    ],
  ],
  'eval run': [
    [
      'the cases of evals/, held to a gate',
      "durable-agents eval run evals/ --model anthropic/claude-sonnet-4-6 --gate 'pass>=0.95,drift==0'",
    ],
    [
      'costing at most 10 % more than an earlier report (eval run --json > before.json)',
      "durable-agents eval run --baseline before.json --gate 'pass>=0.95,cost<=1.1x'",
    ],
  ],
  'eval replay': [
    [
      'two recorded runs on another model',
      'durable-agents eval replay --workflow-id ID1 ID2 --candidate model=openai/gpt-4o-mini',
    ],
    [
      'the runs scored unhelpful, with a new system prompt',
      'durable-agents eval replay --query "DurableAgentScoreName = \'helpful\' AND DurableAgentScore < 0.5" ' +
        '--candidate system-prompt=@prompts/v2.md',
    ],
  ],
  score: [
    ['score a run under a name', 'durable-agents score ID helpful 0.3 --comment "answered another question"'],
    ['its scores', 'durable-agents score ID'],
  ],
  fork: [
    [
      'a new run from the first two turns of ID, on another model',
      'durable-agents fork ID --at-turn 2 --model openai/gpt-4o-mini "Try again, shorter"',
    ],
  ],
  list: [
    ['the runs waiting for a person', 'durable-agents list --status awaiting_approval'],
    ['runs cut off by their cost limit, as JSON', 'durable-agents list --stop-reason cost_budget --json'],
    [
      'any visibility query, with the Temporal CLI',
      'temporal workflow list --query "DurableAgentKind = \'pev\' AND DurableAgentCostUsd > 1"',
    ],
  ],
};

/** The text `--help` shows after a command's options: each example's line, then its command, indented. */
function examplesText(examples: readonly (readonly [string, string])[]): string {
  const blocks = examples.map(([what, command]) =>
    [`  # ${what}`, ...command.split('\n').map((line) => `  ${line}`)].join('\n'),
  );
  return `\nExamples:\n${blocks.join('\n\n')}`;
}

/** The command's path under the program: `schedule create`. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Adds its examples to every command of `program` that has some. */
export function addHelpExamples(program: Command): void {
  const visit = (command: Command) => {
    const examples = HELP_EXAMPLES[pathOf(command)];
    if (examples) command.addHelpText('after', examplesText(examples));
    command.commands.forEach(visit);
  };
  program.commands.forEach(visit);
}
