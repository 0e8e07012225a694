/** `extract`: a typed value from a model's text or a run's last answer, and what it says when it cannot. */
import { z } from 'zod';
import { extract, extractWithMethod, ExtractError } from '../../../src/client';
import type { RunMessage } from '../../../src/contracts/run-message';

const Weather = z.object({ city: z.string(), tempC: z.number(), tags: z.array(z.string()) });

const errorOf = (fn: () => unknown): ExtractError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ExtractError) return err;
    throw err;
  }
  throw new Error('expected an ExtractError');
};

describe('extract', () => {
  const Row = z.object({ name: z.string(), amount: z.number() });
  const rows = '[{"name":"Ann","amount":3},{"name":"Bob","amount":5}]';

  it('reads a JSON array at the root whole, and an object schema refuses it rather than taking its first element', () => {
    expect(extract(z.array(Row), rows)).toEqual([
      { name: 'Ann', amount: 3 },
      { name: 'Bob', amount: 5 },
    ]);
    expect(extract(z.array(Row), `The rows:\n\`\`\`json\n${rows}\n\`\`\`\nDone.`)).toHaveLength(2);
    expect(extract(z.array(z.number()), 'The amounts are [3, 5].')).toEqual([3, 5]);
    const cut = extractWithMethod(z.array(z.object({ name: z.string() })), '[{"name":"Ann"},{"name":"Bo');
    expect(cut).toEqual({ value: [{ name: 'Ann' }, { name: 'Bo' }], method: 'repaired' });
    const err = errorOf(() => extract(Row, rows));
    expect(err.message).toMatch(/^the answer's JSON does not match the schema: .*expected object, received array/i);
  });

  it('still reads an object that holds arrays, or follows a bracketed word', () => {
    expect(extract(z.object({ rows: z.array(Row) }), `{"rows": ${rows}}`).rows).toHaveLength(2);
    expect(extract(Row, '[note] here it is: {"name":"Ann","amount":3}')).toEqual({ name: 'Ann', amount: 3 });
  });

  it('reads an object in a code fence with prose around it', () => {
    const text = 'Here it is:\n```json\n{"city": "Oslo", "tempC": -3, "tags": ["snow"]}\n```\nAnything else?';
    const value: z.infer<typeof Weather> = extract(Weather, text);
    expect(value).toEqual({ city: 'Oslo', tempC: -3, tags: ['snow'] });
  });

  it('repairs an answer cut off in the middle of a string', () => {
    const { value, method } = extractWithMethod(Weather, '{"city": "Lima", "tempC": 19, "tags": ["fog", "dri');
    expect(value).toEqual({ city: 'Lima', tempC: 19, tags: ['fog', 'dri'] });
    expect(method).toBe('repaired');
  });

  it('lists every field that does not match the schema', () => {
    const err = errorOf(() => extract(Weather, '{"city": 7, "tags": "rain"}'));
    expect(err.problems).toEqual([
      expect.stringMatching(/^city: .*expected string/i),
      expect.stringMatching(/^tempC: .*expected number/i),
      expect.stringMatching(/^tags: .*expected array/i),
    ]);
    expect(err.message).toMatch(/^the answer's JSON does not match the schema: city: .*; tempC: .*; tags: /);
    expect(err.text).toBe('{"city": 7, "tags": "rain"}');
  });

  it('says so when the text holds no JSON object at all', () => {
    const err = errorOf(() => extract(Weather, 'It is sunny in Rome.'));
    expect(err.message).toBe('cannot extract a value: no JSON object could be found or repaired in the answer');
    expect(errorOf(() => extract(Weather, '  ')).message).toContain('the answer was empty');
  });

  it("reads a run's last assistant message that has text", () => {
    const messages: RunMessage[] = [
      { role: 'user', seq: 0, origin: 'task', text: 'Weather in Oslo as JSON.' },
      { role: 'assistant', seq: 1, text: '{"city": "Bergen", "tempC": 4, "tags": []}', thinking: [], toolCalls: [] },
      { role: 'user', seq: 2, origin: 'follow_up', text: 'And Oslo?' },
      {
        role: 'assistant',
        seq: 3,
        text: '```\n{"city": "Oslo", "tempC": -3, "tags": []}\n```',
        thinking: [],
        toolCalls: [],
      },
      {
        role: 'assistant',
        seq: 4,
        text: '',
        thinking: [],
        toolCalls: [{ id: 'c1', name: 'noop', arguments: {} }],
      },
    ];
    expect(extract(Weather, messages)).toEqual({ city: 'Oslo', tempC: -3, tags: [] });
    expect(errorOf(() => extract(Weather, messages.slice(0, 1))).message).toBe(
      'no assistant message with text to extract from',
    );
  });
});
