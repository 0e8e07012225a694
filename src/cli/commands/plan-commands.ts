/**
 * Commands that give a running run its plan and the user's answers (docs/plans.md): `set-plan`
 * replaces the plan or changes items of it, `answer` answers the question the model asked.
 */
import type { Command } from 'commander';
import { collect } from '../option-parsers';
import { readPlanFile } from '../plan-file';
import { UsageError } from '../exit-codes';
import { withAgents, type AgentCommandDeps } from './agent-deps';

interface SetPlanOptions {
  done?: string[];
  open?: string[];
  add?: string[];
  json?: boolean;
}

export function registerPlanCommands(program: Command, deps: AgentCommandDeps): void {
  program
    .command('set-plan')
    .description(
      'Replace the plan a run recites each turn with FILE (a JSON array or a Markdown checklist), ' +
        'or change items of it by id with --done, --open and --add.',
    )
    .argument('<id>')
    .argument('[file]')
    .option('--done <item>', 'mark the item with this id done (repeatable)', collect)
    .option('--open <item>', 'reopen the item with this id (repeatable)', collect)
    .option('--add <title>', 'append an item (repeatable)', collect)
    .option('--json', 'print the plan sent as JSON')
    .action((id: string, file: string | undefined, o: SetPlanOptions) =>
      withAgents(deps, async (agents) => {
        const changes = o.done ?? o.open ?? o.add;
        if (file && changes) throw new UsageError('give a plan FILE or --done/--open/--add, not both');
        if (!file && !changes) throw new UsageError('give a plan FILE, or --done, --open or --add with item ids');
        const sent = file
          ? readPlanFile(file)
          : await agents.updatePlan(id, { done: o.done, open: o.open, add: o.add });
        if (file) await agents.setPlan(id, sent);
        deps.out(
          o.json
            ? JSON.stringify({ id, plan: sent })
            : [`plan sent to ${id}:`, ...sent.map((p) => `  [${p.done ? 'x' : ' '}] ${p.id}. ${p.title}`)].join('\n'),
        );
      }),
    );

  program
    .command('answer')
    .description("Answer the question a run's model asked the user (a run started with --ask-user).")
    .argument('<id>')
    .argument('<text>')
    .option('--call <call-id>', 'which question, when the run waits for several')
    .option('--json', 'print what was accepted as JSON')
    .action((id: string, text: string, o: { call?: string; json?: boolean }) =>
      withAgents(deps, async (agents) => {
        const { toolCallId, question } = await agents.answer(id, text, o.call);
        deps.out(
          o.json
            ? JSON.stringify({ id, toolCallId, question, accepted: true })
            : `answer to "${question}" accepted by ${id}`,
        );
      }),
    );
}
