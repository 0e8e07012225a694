import { attributeChanges, type AgentAttributeValues } from '../../../src/policy/search-attribute-values';

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
});
