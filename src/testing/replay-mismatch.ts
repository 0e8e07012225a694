/**
 * Reads the SDK's replay failures back into one readable line: which event of the history the
 * code disagreed with, what the history recorded there and what the code did instead. Temporal's
 * core writes these as text (`[TMPRL1100] Nondeterminism error: Activity machine does not handle
 * this event: HistoryEvent(id: 5, UpsertWorkflowSearchAttributes)`); the patterns below are the
 * shapes it writes.
 */
import type { History } from '@temporalio/common/lib/proto-utils';

type HistoryEvent = NonNullable<History['events']>[number];

/** Where the workflow code and a recorded history parted. */
export interface Mismatch {
  /** The event id of the history where they parted, when the failure names it (or names one event). */
  eventId?: number;
  /** What the history recorded there, e.g. `ActivityTaskScheduled (callModel)`. */
  recorded: string;
  /** What the code did instead, e.g. `ScheduleActivityTask`, or `nothing` when it made no command. */
  code: string;
}

/** The command each of core's state machines makes, by the name core gives the machine. */
const MACHINE_COMMANDS: Record<string, string> = {
  Activity: 'ScheduleActivityTask',
  Timer: 'StartTimer',
  'Local activity': 'a local activity',
  'Complete workflow': 'CompleteWorkflowExecution',
  'Fail workflow': 'FailWorkflowExecution',
  'Cancel workflow': 'CancelWorkflowExecution',
  'Continue as new workflow': 'ContinueAsNewWorkflowExecution',
  'Child workflow': 'StartChildWorkflowExecution',
  'Signal external WF': 'SignalExternalWorkflowExecution',
  'Cancel external WF': 'RequestCancelExternalWorkflowExecution',
  'Nexus operation': 'ScheduleNexusOperation',
  Change: 'a patch check',
  Update: 'an update response',
  UpsertWorkflowSearchAttributesMachine: 'UpsertWorkflowSearchAttributes',
  ModifyWorkflowPropertiesMachine: 'ModifyWorkflowProperties',
};

const HISTORY_EVENT = /HistoryEvent\(id: (\d+), (\w+)\)/;

/** The innermost failure message core wraps in `Failure { failure: Some(Failure { message: "…"`. */
export function coreMessage(message: string): string {
  const quoted = /message: "((?:[^"\\]|\\.)*)"/.exec(message);
  const inner = quoted ? quoted[1].replace(/\\(.)/g, '$1') : message.replace(/^.*?Details: /s, '');
  return inner
    .replace(/^\[TMPRL\d+\] Nondeterminism error: /, '')
    .split('\n')[0]
    .trim();
}

/** The patch id a `patched()` marker records (`{"id": …}` in its `patch-data` payload). */
function patchIdOf(event: HistoryEvent | undefined): string | undefined {
  const marker = event?.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_patch') return undefined;
  const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
  try {
    return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id?: string }).id : undefined;
  } catch {
    return undefined;
  }
}

/** The history's event `id`, with what names it (activity type, patch, marker, timer) beside its type. */
function eventLabel(events: HistoryEvent[], id: number, type: string): string {
  const event = events.find((e) => Number(e.eventId) === id);
  const patch = patchIdOf(event);
  const detail =
    (patch && `patch ${patch}`) ??
    event?.activityTaskScheduledEventAttributes?.activityType?.name ??
    event?.markerRecordedEventAttributes?.markerName ??
    event?.timerStartedEventAttributes?.timerId ??
    event?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name;
  return detail ? `${type} (${detail})` : type;
}

/** The id of the one event that matches; undefined when none or several do. */
function onlyEvent(events: HistoryEvent[], matches: (event: HistoryEvent) => boolean): number | undefined {
  const found = events.filter(matches);
  return found.length === 1 ? Number(found[0].eventId) : undefined;
}

/**
 * The mismatch a nondeterminism failure describes, or undefined for a shape it does not know
 * (the caller then shows the failure's own message).
 */
export function parseMismatch(message: string, events: HistoryEvent[]): Mismatch | undefined {
  const text = coreMessage(message);
  const event = HISTORY_EVENT.exec(text);
  if (event) {
    const eventId = Number(event[1]);
    const recorded = eventLabel(events, eventId, event[2]);
    if (/^No command scheduled for event/.test(text)) return { eventId, recorded, code: 'nothing' };
    const machine = /^(.+?)(?: machine)? (?:does not|cannot) handle/.exec(text)?.[1];
    const code = machine ? (MACHINE_COMMANDS[machine] ?? `${machine} (a command of another kind)`) : undefined;
    if (code) return { eventId, recorded, code };
  }
  const activity =
    /^Activity type of scheduled event '(.*)' does not match activity type of activity command '(.*)'$/.exec(text);
  if (activity) {
    const eventId = onlyEvent(
      events,
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity[1],
    );
    return {
      eventId,
      recorded: `ActivityTaskScheduled (${activity[1]})`,
      code: `ScheduleActivityTask (${activity[2]})`,
    };
  }
  const local =
    /^Activity type of recorded marker '(.*)' does not match activity type of local activity command '(.*)'$/.exec(
      text,
    );
  if (local) return { recorded: `local activity ${local[1]}`, code: `local activity ${local[2]}` };
  const changed = /^Change id (.+) does not match expected id (.+)$/.exec(text);
  if (changed) {
    const eventId = onlyEvent(events, (e) => patchIdOf(e) === changed[1]);
    return { eventId, recorded: `MarkerRecorded (patch ${changed[1]})`, code: `patched('${changed[2]}')` };
  }
  const patch = /^Non-deprecated patch marker encountered for change (.+?), but there is no corresponding/.exec(text);
  if (patch) {
    const eventId = onlyEvent(events, (e) => patchIdOf(e) === patch[1]);
    return { eventId, recorded: `MarkerRecorded (patch ${patch[1]})`, code: `no patched('${patch[1]}') check` };
  }
  return undefined;
}

/** The workflow type a replay could not start because the code exports no such function. */
export function missingWorkflowType(message: string): string | undefined {
  return /Failed to initialize workflow of type '([^']+)': no such function/.exec(message)?.[1];
}
