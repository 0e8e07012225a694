import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { coreMessage, missingWorkflowType, parseMismatch } from '../../src/testing/replay-mismatch';
import { HISTORIES_DIR } from '../kit/temporal';

const eventsOf = (name: string) =>
  historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, `${name}.json`), 'utf8'))).events ?? [];

/** The message the SDK gives a DeterminismViolationError, around core's text. */
const sdkMessage = (core: string) =>
  'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible ' +
  'with the history that was fed in. Details: Workflow activation completion failed: Failure { failure: ' +
  `Some(Failure { message: "[TMPRL1100] Nondeterminism error: ${core}", source: "", stack_trace: "" }) }`;

describe('reading a replay mismatch', () => {
  const multiTurn = eventsOf('agent-multi-turn');
  const leanTurn = eventsOf('agent-lean-turn');

  it('reads the event and the command of the machine that met it', () => {
    const message = sdkMessage(
      'Activity machine does not handle this event: HistoryEvent(id: 5, UpsertWorkflowSearchAttributes)',
    );
    expect(parseMismatch(message, multiTurn)).toEqual({
      eventId: 5,
      recorded: 'UpsertWorkflowSearchAttributes',
      code: 'ScheduleActivityTask',
    });
  });

  it('names the activity type of a recorded activity, and says when the code made no command', () => {
    const message = sdkMessage('No command scheduled for event HistoryEvent(id: 12, ActivityTaskScheduled)');
    expect(parseMismatch(message, multiTurn)).toEqual({
      eventId: 12,
      recorded: 'ActivityTaskScheduled (appendMessages)',
      code: 'nothing',
    });
  });

  it('finds the marker of a patch the code does not check, by its id', () => {
    const message = sdkMessage('Change id lean-turn does not match expected id context-fit');
    expect(parseMismatch(message, leanTurn)).toEqual({
      eventId: 5,
      recorded: 'MarkerRecorded (patch lean-turn)',
      code: "patched('context-fit')",
    });
  });

  it('gives an event id for an activity of another type only when one event can be meant', () => {
    const shape = (recorded: string) =>
      sdkMessage(
        `Activity type of scheduled event '${recorded}' does not match activity type of activity command 'summarize'`,
      );
    expect(parseMismatch(shape('pinTools'), multiTurn)).toEqual({
      eventId: 6,
      recorded: 'ActivityTaskScheduled (pinTools)',
      code: 'ScheduleActivityTask (summarize)',
    });
    expect(parseMismatch(shape('callModel'), multiTurn)?.eventId).toBeUndefined();
  });

  it('leaves a shape it does not know to the caller, with core message unwrapped', () => {
    const message = sdkMessage('Something new happened');
    expect(parseMismatch(message, multiTurn)).toBeUndefined();
    expect(coreMessage(message)).toBe('Something new happened');
  });

  it('reads the workflow type the code does not export', () => {
    const message =
      'Replay failed due workflow task failure. Details: Workflow activation completion failed: Failure { failure: ' +
      `Some(Failure { message: "Failed to initialize workflow of type 'helloWorkflow': no such function is exported by the workflow bundle" }) }`;
    expect(missingWorkflowType(message)).toBe('helloWorkflow');
  });
});
