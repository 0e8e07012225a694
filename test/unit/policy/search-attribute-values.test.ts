import {
  attributeChanges,
  startSearchAttributes,
  textAttributeValue,
  type AgentAttributeValues,
} from '../../../src/policy/search-attribute-values';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../../../src/contracts/search-attributes';
import { layerRunSpec } from '../../../src/policy/run-spec';
import { REACT_FACTS } from '../../../src/policy/kind-facts';

describe('search attributes', () => {
  const values = (over: Partial<AgentAttributeValues> = {}): AgentAttributeValues => ({
    kind: 'react',
    phase: 'running',
    model: 'anthropic/claude-sonnet-4-6',
    status: 'running',
    awaitingApproval: false,
    costUsd: 0,
    ...over,
  });

  it('upserts only what changed, and the cost only when it grew by a step or rides along', () => {
    expect(attributeChanges({}, values())).toEqual(values());
    expect(attributeChanges(values(), values())).toEqual({});
    expect(attributeChanges(values(), values({ costUsd: 0.01 }))).toEqual({ costUsd: 0.01 });
    expect(attributeChanges(values({ costUsd: 0.01 }), values({ costUsd: 0.012 }))).toEqual({});
    expect(attributeChanges(values({ costUsd: 0.01 }), values({ costUsd: 0.0125 }))).toEqual({ costUsd: 0.0125 });
    expect(attributeChanges(values({ costUsd: 0.01 }), values({ costUsd: 0.011, status: 'completed' }))).toEqual({
      status: 'completed',
      costUsd: 0.011,
    });
  });

  it('writes few cost upserts over a long run', () => {
    let published: Partial<AgentAttributeValues> = values();
    let upserts = 0;
    for (let turn = 1; turn <= 200; turn++) {
      const changes = attributeChanges(published, values({ costUsd: turn * 0.0075 }));
      if (Object.keys(changes).length > 0) upserts += 1;
      published = { ...published, ...changes };
    }
    expect(upserts).toBeLessThan(35);
  });

  /**
   * Whether PostgreSQL's tsvector literal input takes `value`: whitespace-separated lexemes, each
   * optionally followed by `:` and positions (digits, a weight letter after each); `\` escapes.
   */
  const tsvectorLiteralTakes = (value: string): boolean =>
    !value.includes('\\') && value.split(/\s+/).every((token) => /^[^:]*(:\d+[A-D]?(,\d+[A-D]?)*)?$/.test(token));

  it('writes Text values every visibility store takes, each word still a word of its own', () => {
    const refusedByPostgres = [
      'CHILD-ONE: read README.md',
      'Fix: the bug',
      'note: x',
      'key:value',
      'Review https://x.io',
      'C:\\Users',
      'ends with a colon:',
    ];
    for (const task of refusedByPostgres) expect(tsvectorLiteralTakes(task)).toBe(false);
    expect(refusedByPostgres.map(textAttributeValue)).toEqual([
      'CHILD-ONE read README.md',
      'Fix the bug',
      'note x',
      'key value',
      'Review https //x.io',
      'C Users',
      'ends with a colon',
    ]);
    for (const task of refusedByPostgres) expect(tsvectorLiteralTakes(textAttributeValue(task))).toBe(true);
    expect(textAttributeValue('Read the checklist and tell me what is open')).toBe(
      'Read the checklist and tell me what is open',
    );

    const config = layerRunSpec(REACT_FACTS, [{ task: 't', model: 'anthropic/claude-sonnet-4-6' }]);
    const task = startSearchAttributes(config, 'Fix: the login bug\nsee https://x.io').find((p) => p.key === SA.task);
    expect(task?.value).toBe('Fix the login bug');
  });
});
