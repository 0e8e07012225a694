/**
 * Commands that act on a run: steer, follow-up, stop, cancel, terminate, switch-model (signals and
 * Temporal's own requests, which say when no worker will act on them yet) and plan, tool-result
 * (updates, which need a worker at once). Approvals have their own commands (approvals-command.ts).
 */
import type { Command } from 'commander';
import type { AgentClient } from '../../client';
import { startWorkerHint } from '../../client/client-errors';
import { checkModelSpecs } from '../model-check';
import { spec } from '../option-parsers';
import { noteOf, withAgents, type AgentCommandDeps } from './agent-deps';
import { parseJsonText } from '../json-file';

/** The text a client tool result carries: a JSON string as its text, any other JSON value as JSON. */
function toolResultContent(text: string): string {
  const value = parseJsonText(text, 'the tool result');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function registerControlCommands(program: Command, deps: AgentCommandDeps): void {
  const note = noteOf(deps);

  /**
   * Sends something a worker acts on later, then prints `done` (or, with --json, the object) and a
   * notice when no worker polls the run's queue yet.
   */
  const send = (
    id: string,
    json: boolean | undefined,
    what: string,
    op: (agents: AgentClient) => Promise<{ line: string; fields?: Record<string, unknown> }>,
  ) =>
    withAgents(deps, async (agents) => {
      const { line, fields } = await op(agents);
      const w = await agents.workers(id).catch(() => undefined);
      deps.out(json ? JSON.stringify({ id, sent: what, ...fields, workerPolling: w?.polling ?? null }) : line);
      if (w && w.status === 'RUNNING' && !w.polling)
        note(
          `no worker is polling task queue "${w.taskQueue}" yet: run ${id} acts on the ${what} ` +
            `when one does; ${startWorkerHint(w.taskQueue)}`,
        );
    });

  program
    .command('steer')
    .description('Redirect a running agent: remaining tool calls of its turn are skipped, TEXT goes to the model next.')
    .argument('<id>')
    .argument('<text>')
    .option('--json', 'print what was sent as JSON')
    .action((id: string, text: string, o: { json?: boolean }) =>
      send(id, o.json, 'steering', async (agents) => {
        const messageId = await agents.steer(id, text);
        return { line: `steering sent (message ${messageId})`, fields: { messageId } };
      }),
    );

  program
    .command('follow-up')
    .description('Queue TEXT for when the agent would otherwise finish; it starts a new turn.')
    .argument('<id>')
    .argument('<text>')
    .option('--json', 'print what was sent as JSON')
    .action((id: string, text: string, o: { json?: boolean }) =>
      send(id, o.json, 'follow-up', async (agents) => {
        const messageId = await agents.followUp(id, text);
        return { line: `follow-up queued (message ${messageId})`, fields: { messageId } };
      }),
    );

  program
    .command('note')
    .description("Add a note to a run's conversation log for people and tools; the model never sees it.")
    .argument('<id>')
    .argument('<text>')
    .option('--system-event', 'write it as a system event (default: a context note)')
    .option('--json', 'print what was sent as JSON')
    .action((id: string, text: string, o: { systemEvent?: boolean; json?: boolean }) =>
      send(id, o.json, 'note', async (agents) => {
        const kind = o.systemEvent ? 'system_event' : 'context_note';
        const messageId = await agents.addNote(id, text, { kind });
        return { line: `${kind.replace('_', ' ')} sent (message ${messageId})`, fields: { messageId, kind } };
      }),
    );

  program
    .command('stop')
    .description('Stop a run after its current step; open tool calls get results.')
    .argument('<id>')
    .option('--note <text>', 'why (kept with the run)')
    .option('--json', 'print what was sent as JSON')
    .action((id: string, o: { note?: string; json?: boolean }) =>
      send(id, o.json, 'stop', async (agents) => {
        await agents.stop(id, o.note);
        return { line: `stop sent to ${id}` };
      }),
    );

  program
    .command('cancel')
    .description("Cancel a run (Temporal's cancellation): it ends like a stop, with stop reason cancelled.")
    .argument('<id>')
    .option('--json', 'print what was sent as JSON')
    .action((id: string, o: { json?: boolean }) =>
      send(id, o.json, 'cancellation', async (agents) => {
        await agents.cancel(id);
        return { line: `cancellation requested for ${id}` };
      }),
    );

  program
    .command('terminate')
    .description('End a run at once, without a result and without finishing its current step.')
    .argument('<id>')
    .option('--reason <text>', 'why (kept in the run history)')
    .option('--json', 'print what was done as JSON')
    .action((id: string, o: { reason?: string; json?: boolean }) =>
      withAgents(deps, async (agents) => {
        await agents.terminate(id, o.reason);
        deps.out(o.json ? JSON.stringify({ id, terminated: true }) : `${id} terminated`);
      }),
    );

  program
    .command('switch-model')
    .description('Move a run to another model from its next turn on.')
    .argument('<id>')
    .argument('<spec>', 'model spec, e.g. openai/gpt-5-mini', spec)
    .option('--note <text>', 'why (recorded with the switch)')
    .option('--json', 'print what was sent as JSON')
    .action((id: string, model: string, o: { note?: string; json?: boolean }) => {
      checkModelSpecs([model], deps.env);
      return send(id, o.json, 'model switch', async (agents) => {
        await agents.switchModel(id, model, o.note);
        return { line: `switch to ${model} sent to ${id}`, fields: { model } };
      });
    });

  program
    .command('plan')
    .description('Approve or reject the plan a run waits on (a run started with --confirm-plan).')
    .argument('<id>')
    .option('--reject', 'reject the plan; the planner plans again')
    .option('--feedback <text>', 'what to change (given to the planner)')
    .option('--json', 'print the decision as JSON')
    .action((id: string, o: { reject?: boolean; feedback?: string; json?: boolean }) =>
      withAgents(deps, async (agents) => {
        const r = await agents.decidePlan(id, !o.reject, o.feedback);
        deps.out(o.json ? JSON.stringify(r) : `plan of cycle ${r.cycle}: ${r.approved ? 'approved' : 'rejected'}`);
      }),
    );

  program
    .command('tool-result')
    .description('Give a run the result of a client tool call it waits for (see `state`).')
    .argument('<id>')
    .argument('<call-id>')
    .argument('<json>', 'the result: a JSON string is passed as its text, any other JSON value as JSON text')
    .option('--error', 'the tool failed: the result is its error message')
    .option('--json', 'print what was accepted as JSON')
    .action((id: string, callId: string, text: string, o: { error?: boolean; json?: boolean }) =>
      withAgents(deps, async (agents) => {
        await agents.submitToolResult(id, callId, toolResultContent(text), o.error === true);
        deps.out(
          o.json ? JSON.stringify({ id, toolCallId: callId, accepted: true }) : `result of ${callId} accepted by ${id}`,
        );
      }),
    );
}
