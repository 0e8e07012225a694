import {
  GIVEN_MESSAGES_MODEL,
  initialBodies,
  initialMessageProblems,
  openingInput,
} from '../../../src/policy/initial-messages';
import { runSpec } from '../../kit/run-spec';
import { runSpecProblems } from '../../../src/policy/run-spec-problems';
import { pinRequest } from '../../../src/policy/pinning';
import type { InitialMessage } from '../../../src/contracts/run-spec';

const call = { type: 'tool_call' as const, id: 'c1', name: 'lookup', arguments: { q: 'x' } };
const CHAT: InitialMessage[] = [
  { role: 'user', content: 'Find x.' },
  { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, call] },
  { role: 'tool_result', toolCallId: 'c1', toolName: 'lookup', content: 'x is 4' },
  { role: 'assistant', content: 'x is 4.' },
];
const MODEL = { provider: 'anthropic', model: 'claude-sonnet-4-6' };

describe('initialMessageProblems', () => {
  it('takes a conversation that begins with the user, alternates and answers every call, and a stored one by hash', () => {
    expect(initialMessageProblems(CHAT)).toEqual([]);
    expect(initialMessageProblems(CHAT.slice(0, 3))).toEqual([]);
    expect(initialMessageProblems({ hash: 'abc' })).toEqual([]);
  });

  it('refuses what is not a list of messages, and an empty list', () => {
    expect(initialMessageProblems('hi')).toEqual(['initialMessages must be an array of messages']);
    expect(initialMessageProblems([])).toEqual(['initialMessages is empty: give at least one message, or none at all']);
    expect(initialMessageProblems({})).toEqual(['initialMessages by reference need the hash']);
  });

  it('names each malformed message on a line of its own', () => {
    expect(
      initialMessageProblems([
        { role: 'system', content: 'x' },
        { role: 'user', content: '  ' },
        { role: 'assistant', content: [] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'n' }] },
        { role: 'tool_result', content: 'r' },
        { role: 'user', content: [{ type: 'text', text: '' }] },
      ]),
    ).toEqual([
      'initialMessages[0] is not a user, assistant or tool_result message',
      'initialMessages[1] (user) has empty content',
      'initialMessages[2] (assistant) has empty content',
      'initialMessages[3] (assistant) has a tool_call without an id, a name and an arguments object',
      'initialMessages[4] is a tool_result without toolCallId and toolName',
      'initialMessages[5] (user) has an empty text block',
    ]);
  });

  it('shows five problems of a long broken conversation and counts the rest', () => {
    const problems = initialMessageProblems(Array.from({ length: 8 }, () => ({ role: 'user', content: '' })));
    expect(problems).toHaveLength(6);
    expect(problems[5]).toBe('and 3 more problems with initialMessages');
  });

  it('refuses an order no provider takes, naming the first place it goes wrong', () => {
    expect(initialMessageProblems(CHAT.slice(1))).toEqual([
      'initialMessages[0] must be a user message: a conversation begins with one',
    ]);
    expect(initialMessageProblems([CHAT[0], CHAT[3], CHAT[3]])).toEqual([
      'initialMessages[2] is a second assistant message in a row: user and assistant messages alternate',
    ]);
    expect(initialMessageProblems([CHAT[0], CHAT[1], CHAT[0]])).toEqual([
      'initialMessages[2] comes before the results of tool calls c1 of initialMessages[1]',
    ]);
    expect(initialMessageProblems([CHAT[0], CHAT[1]])).toEqual(['tool calls c1 of initialMessages[1] have no results']);
    expect(initialMessageProblems([CHAT[0], CHAT[3], { ...CHAT[2], toolCallId: 'c9' }])).toEqual([
      'initialMessages[2] answers tool call "c9", which the answer before it did not make or was answered already',
    ]);
    expect(initialMessageProblems([...CHAT.slice(0, 3), CHAT[2]])).toEqual([
      'initialMessages[3] answers tool call "c1", which the answer before it did not make or was answered already',
    ]);
    expect(initialMessageProblems([CHAT[0]])).toEqual([
      'initialMessages end with a user message and the task comes next: give that message as the task',
    ]);
  });
});

describe('initial messages in the run spec', () => {
  it('are checked by runSpecProblems, and refused beside a conversation to go on from', () => {
    const spec = runSpec({ task: 'And y?', model: MODEL, session: { initialMessages: [CHAT[1]] } });
    expect(runSpecProblems(spec)).toEqual([
      'initialMessages[0] must be a user message: a conversation begins with one',
    ]);
    const both = runSpec({
      task: 'And y?',
      model: MODEL,
      session: { initialMessages: CHAT, from: { runId: 'r', conversationId: 'r' } },
    });
    expect(runSpecProblems(both)).toEqual(['a run goes on from another run or from initialMessages, not both']);
  });

  it('open the conversation before the task: the pin writes no task, the opening writes them', () => {
    const spec = runSpec({ task: 'And y?', model: MODEL, session: { initialMessages: { hash: 'h' } } });
    expect(pinRequest(spec, [], 'c').open).toBeUndefined();
    expect(openingInput(spec, 'c')).toEqual({ to: 'c', given: { hash: 'h' } });
    const fork = runSpec({ task: '', model: MODEL, session: { from: { runId: 'r', conversationId: 'r', atTurn: 2 } } });
    expect(openingInput(fork, 'c')).toEqual({ from: 'r', to: 'c', atTurn: 2 });
    expect(openingInput(runSpec({ task: 't', model: MODEL }), 'c')).toBeUndefined();
  });
});

describe('initialBodies', () => {
  it('stores texts as blocks, answers as no model of the run wrote them, results not failed unless said', () => {
    const bodies = initialBodies(CHAT, 7);
    expect(bodies.map((b) => b.kind)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
    expect(bodies[0].body).toEqual({ role: 'user', content: 'Find x.', timestamp: 7 });
    expect(bodies[1].body).toMatchObject({ ...GIVEN_MESSAGES_MODEL, stopReason: 'tool_use', timestamp: 7 });
    expect(bodies[2].body).toEqual({
      role: 'tool_result',
      toolCallId: 'c1',
      toolName: 'lookup',
      content: [{ type: 'text', text: 'x is 4' }],
      isError: false,
      timestamp: 7,
    });
    expect(bodies[3].body).toMatchObject({ content: [{ type: 'text', text: 'x is 4.' }], stopReason: 'stop' });
  });
});
