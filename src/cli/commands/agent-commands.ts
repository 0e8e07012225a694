/**
 * Agent commands: run, watch, state, trace, result, list, steer, follow-up, note, stop, cancel,
 * terminate, switch-model, approve, reject, plan, tool-result, set-plan, answer, approvals, schedule.
 * Each prints what the user asked for on stdout (JSON with --json) and notices on stderr; every
 * failure is one line and a distinct exit code (see cli/index.ts and cli/exit-codes.ts).
 */
import type { Command } from 'commander';
import type { AgentCommandDeps } from './agent-deps';
import { registerApprovalCommands } from './approvals-command';
import { registerControlCommands } from './control-commands';
import { registerPlanCommands } from './plan-commands';
import { registerReadCommands } from './read-commands';
import { registerForkCommand, registerRunCommand } from './run-command';
import { registerScheduleCommands } from './schedule-commands';

export function registerAgentCommands(program: Command, deps: AgentCommandDeps): void {
  registerRunCommand(program, deps);
  registerForkCommand(program, deps);
  registerReadCommands(program, deps);
  registerControlCommands(program, deps);
  registerPlanCommands(program, deps);
  registerApprovalCommands(program, deps);
  registerScheduleCommands(program, deps);
}
