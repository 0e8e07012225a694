import type { History } from '@temporalio/common/lib/proto-utils';
import { coreMessage, missingWorkflowType, parseMismatch } from '../../../src/testing/replay-mismatch';

type Event = NonNullable<History['events']>[number];

/** An event id as the reader reads it (`Number(eventId)`), without the proto's Long. */
const id = (n: number): Event['eventId'] => n as unknown as Event['eventId'];

/** A history event with what the reader looks at: its id, and the activity type or patch id it names. */
function event(eventId: number, named?: { activity?: string; patch?: string }): Event {
  if (named?.activity)
    return {
      eventId: id(eventId),
      activityTaskScheduledEventAttributes: { activityType: { name: named.activity } },
    };
  if (named?.patch) {
    const data = Buffer.from(JSON.stringify({ id: named.patch, deprecated: false }));
    return {
      eventId: id(eventId),
      markerRecordedEventAttributes: { markerName: 'core_patch', details: { 'patch-data': { payloads: [{ data }] } } },
    };
  }
  return { eventId: id(eventId) };
}

/** The message the SDK gives a DeterminismViolationError, around core's text. */
const sdkMessage = (core: string) =>
  'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible ' +
  'with the history that was fed in. Details: Workflow activation completion failed: Failure { failure: ' +
  `Some(Failure { message: "[TMPRL1100] Nondeterminism error: ${core}", source: "", stack_trace: "" }) }`;

describe('reading a replay mismatch', () => {
  // A run's first events: started, a workflow task, two activities of its own and one of another type.
  const multiTurn = [
    event(1),
    event(2),
    event(3),
    event(4),
    event(5),
    event(6, { activity: 'pinTools' }),
    event(8, { activity: 'callModel' }),
    event(12, { activity: 'appendMessages' }),
    event(15, { activity: 'callModel' }),
  ];
  const leanTurn = [event(1), event(2), event(3), event(4), event(5, { patch: 'lean-turn' })];

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
