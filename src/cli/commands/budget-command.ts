/**
 * `durable-agents budget`: tenant budgets across runs (docs/fleet.md, Tenant budgets across runs).
 * `set` starts or changes the tenant's ledger and tells its open runs; `show` prints the period's
 * spend, what is reserved and what is left. Bad values are refused before anything is sent.
 */
import { whileOpen } from '../../common/while-open';
import { Option, type Command } from 'commander';
import { json } from './agent-deps';
import { BUDGET_PERIODS, type LedgerView } from '../../contracts/tenant-budget';
import { usd } from '../../common/decimal';
import { budgetLine } from '../../policy/tenant-budget';
import { connectAgents, type GlobalOptions } from '../cli-context';
import { positiveInt, tenantArg, usdArg } from '../option-parsers';
import { plural } from '../watch-output';
import { printLine, printNotice } from '../terminal-text';

/** What waits in line, and the runs the budget stopped: lines of a ledger that has them. */
function lineAndStops(view: LedgerView): string[] {
  const lines: string[] = [];
  const { held, queue, stops } = view;
  if (held && held.runs > 0)
    lines.push(`held: ${usd(held.usd)} for the expected calls of ${plural(held.runs, 'run')} at work`);
  if (queue && queue.waiting > 0) {
    const [first] = queue.first;
    const what = first.admission ? 'to start' : 'for its next call';
    const since = `${usd(first.usd)}, since ${first.since}`;
    lines.push(`waiting: ${plural(queue.waiting, 'request')} in line; first ${first.run} ${what}, ${since}`);
  }
  if (stops && stops.midTask + stops.beforeStart > 0) {
    const last = stops.recent[stops.recent.length - 1];
    lines.push(
      `stopped by the budget: ${plural(stops.midTask, 'run')} mid-task, ${stops.beforeStart} before starting` +
        (last ? `; last ${last.run}: ${last.reason}` : ''),
    );
  }
  return lines;
}

/** The ledger as text: the budget, the period, then spent, reserved, held, waiting, stopped and left. */
function formatLedger(view: LedgerView): string {
  const tokens = (n: number) => ` (${n} tokens)`;
  const { limits, spent, reserved, remaining, period } = view;
  return [
    `tenant ${view.tenant}: ${budgetLine(limits)}`,
    `period: ${period.start}${period.end ? ` to ${period.end}` : ' on'}`,
    `spent: ${usd(spent.usd)}${tokens(spent.tokens)}`,
    `reserved: ${usd(reserved.usd)}${tokens(reserved.tokens)} by ${plural(view.openReservations, 'call')} in progress`,
    ...lineAndStops(view),
    `remaining: ${usd(remaining.usd)}${remaining.tokens === undefined ? '' : tokens(remaining.tokens)}`,
  ].join('\n');
}

export function registerBudgetCommands(program: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  const budget = program
    .command('budget')
    .description("A tenant's budget across runs: every model call of its runs reserves against it (docs/fleet.md).");

  budget
    .command('set')
    .description(
      "Set a tenant's budget: starts its ledger on the workers' task queue or changes it (the same period keeps " +
        "its spend), and tells the tenant's open runs.",
    )
    .argument('<tenant>', 'the tenant name runs are started with (--tenant)', tenantArg)
    .requiredOption('--max-cost <usd>', 'USD the tenant may spend in a period', usdArg)
    .option('--max-tokens <n>', 'tokens the tenant may use in a period', positiveInt)
    .addOption(
      new Option('--period <period>', 'when the spend starts again (UTC)')
        .choices(BUDGET_PERIODS)
        .makeOptionMandatory(),
    )
    .action(
      async (
        tenant: string,
        options: { maxCost: number; maxTokens?: number; period: (typeof BUDGET_PERIODS)[number] },
      ) => {
        await whileOpen(connectAgents(globals(), env, printNotice), async ({ agents }) => {
          const { ledger, toldRuns } = await agents.setTenantBudget(tenant, {
            maxCostUsd: options.maxCost,
            ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
            period: options.period,
          });
          printLine(formatLedger(ledger));
          if (toldRuns > 0) printLine(`told ${plural(toldRuns, 'open run')} of ${tenant}`);
        });
      },
    );

  budget
    .command('show')
    .description("A tenant's budget: the period, and what its runs spent, hold reserved and have left.")
    .argument('<tenant>', 'the tenant name', tenantArg)
    .option('--json', 'the ledger as JSON')
    .action(async (tenant: string, options: { json?: boolean }) => {
      await whileOpen(connectAgents(globals(), env, printNotice), async ({ agents }) => {
        const view = await agents.tenantBudget(tenant);
        printLine(options.json ? json(view) : formatLedger(view));
      });
    });
}
