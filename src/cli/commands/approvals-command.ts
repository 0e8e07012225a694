/**
 * `approvals`, `approve`, `reject`: the tool calls waiting for a person across runs, and decisions
 * bound to the arguments the person saw. `approve` and `reject` print the call's arguments and
 * quote their hash; on a terminal `approve` asks before it sends (`--yes` skips the question).
 */
import { clip } from '../../policy/previews';
import { formatTable, when } from '../render-list';
import type { Command } from 'commander';
import { approvalsInbox, pendingApproval, type KindWaitEntry, type PendingApprovalEntry } from '../../client/approvals';
import type { ApprovalDecisionResult } from '../../contracts/approval';
import { EXIT } from '../exit-codes';
import { parseArgsJson, positiveInt } from '../option-parsers';
import { hintPrefix, json, noteOf, withAgents, type AgentCommandDeps } from './agent-deps';

/** Characters of the arguments shown per inbox row. */
const ARGS_CHARS = 80;

function formatInbox(approvals: readonly PendingApprovalEntry[]): string {
  const rows = approvals.map((a) => [
    a.runId,
    a.toolCallId,
    a.tool,
    when(a.waitingSince ?? '?'),
    clip(JSON.stringify(a.args), ARGS_CHARS),
  ]);
  return formatTable(['RUN', 'CALL', 'TOOL', 'WAITING SINCE', 'ARGUMENTS'], rows);
}

/** The other decisions runs wait for (a pev plan), each with the commands that make it. */
function formatWaits(waits: readonly KindWaitEntry[], prefix: string): string {
  const rows = waits.map((w) => [
    w.runId,
    w.waitsFor,
    Object.values(w.commands)
      .map((args) => `${prefix} ${args}`)
      .join(' | '),
  ]);
  return formatTable(['RUN', 'WAITS FOR', 'DECIDE WITH'], rows);
}

/** The call as a person should see it before deciding: tool, call, run, and every argument. */
function formatCall(p: PendingApprovalEntry): string {
  return [
    `${p.tool} ${p.toolCallId} in run ${p.runId} (args hash ${p.argsHash}):`,
    ...JSON.stringify(p.args, null, 2)
      .split('\n')
      .map((line) => `  ${line}`),
  ].join('\n');
}

/** A decision as `approve` and `reject` print it: one line, or (`asJson`) the result with the arguments decided on. */
function decisionText(
  r: ApprovalDecisionResult,
  p: PendingApprovalEntry,
  asJson: boolean | undefined,
  edited?: Record<string, unknown>,
): string {
  return asJson
    ? JSON.stringify({ ...r, args: p.args, argsHash: p.argsHash, ...(edited ? { editedArgs: edited } : {}) })
    : `${r.tool} ${r.toolCallId}: ${r.state}${edited ? ' with edited arguments' : ''}`;
}

interface DecisionFlags {
  json?: boolean;
  argsHash?: string;
}

export function registerApprovalCommands(program: Command, deps: AgentCommandDeps): void {
  const note = noteOf(deps);

  program
    .command('approvals')
    .description(
      'List every tool call waiting for approval, across runs: tool, arguments, run, waiting since; then the ' +
        "other decisions runs wait for (a pev run's plan) with the commands that make them.",
    )
    .option(
      '--json',
      'print as JSON with the args hash of each call, for approve/reject --args-hash ' +
        '(other decisions: waitsFor, commands)',
    )
    .option('--limit <n>', 'read at most this many waiting runs', positiveInt, 200)
    .option('--tenant <name>', 'only the runs of this tenant (run --tenant)')
    .action((o: { json?: boolean; limit: number; tenant?: string }) =>
      withAgents(deps, async (agents) => {
        const { approvals, waits, unread } = await approvalsInbox(agents, o);
        for (const u of unread) note(`could not read run ${u.runId}: ${u.reason}`);
        if (o.json) return deps.out(json([...approvals, ...waits]));
        if (approvals.length === 0 && waits.length === 0) return deps.out('no pending approvals');
        if (approvals.length > 0) {
          deps.out(formatInbox(approvals));
          note(`decide with: ${hintPrefix(deps)} approve RUN CALL | reject RUN CALL --reason TEXT`);
        }
        if (waits.length > 0) deps.out(`${approvals.length > 0 ? '\n' : ''}${formatWaits(waits, hintPrefix(deps))}`);
      }),
    );

  program
    .command('approve')
    .description(
      'Approve a pending tool call, optionally with edited arguments. Prints the arguments; on a terminal asks first.',
    )
    .argument('<id>')
    .argument('<call-id>')
    .option('--args <json>', 'run the tool with these arguments instead (a JSON object)')
    .option(
      '--args-hash <hash>',
      'approve only if the call still has the arguments of this hash (see approvals --json)',
    )
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .option('--json', 'print the decision as JSON')
    .action((id: string, callId: string, o: DecisionFlags & { args?: string; yes?: boolean }) =>
      withAgents(deps, async (agents) => {
        const edited = o.args === undefined ? undefined : parseArgsJson(o.args);
        const pending = await pendingApproval(agents, id, callId, 'an approval');
        const shown = `${formatCall(pending)}${edited ? `\nedited arguments: ${JSON.stringify(edited)}` : ''}`;
        (o.json ? note : deps.out)(shown);
        if (deps.confirm && !o.yes) {
          const question = edited ? 'approve with the edited arguments? [y/N] ' : 'approve these arguments? [y/N] ';
          if (!(await deps.confirm(question))) {
            note('not approved: nothing was sent');
            deps.setExitCode?.(EXIT.failed);
            return;
          }
        }
        const r = await agents.approve(id, callId, {
          argsHash: o.argsHash ?? pending.argsHash,
          ...(edited ? { args: edited } : {}),
        });
        deps.out(decisionText(r, pending, o.json, edited));
      }),
    );

  program
    .command('reject')
    .description('Reject a pending tool call; the model reads the reason. Prints the arguments it rejects.')
    .argument('<id>')
    .argument('<call-id>')
    .option('--reason <text>', 'why (shown to the model)')
    .option('--args-hash <hash>', 'reject only if the call still has the arguments of this hash (see approvals --json)')
    .option('--json', 'print the decision as JSON')
    .action((id: string, callId: string, o: DecisionFlags & { reason?: string }) =>
      withAgents(deps, async (agents) => {
        const pending = await pendingApproval(agents, id, callId, 'a rejection');
        (o.json ? note : deps.out)(formatCall(pending));
        const r = await agents.reject(id, callId, {
          argsHash: o.argsHash ?? pending.argsHash,
          ...(o.reason ? { reason: o.reason } : {}),
        });
        deps.out(decisionText(r, pending, o.json));
      }),
    );
}
