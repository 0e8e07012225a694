import { gatewayProblems } from '../../../src/gateway/server';
import { startOptionsFor } from '../../../src/gateway/run-start';

describe('starting runs of published agents', () => {
  const agent = {
    description: 'reads',
    instructions: 'Be brief.',
    model: 'anthropic/claude-sonnet-4-6',
    tools: ['fs_read'],
    approve: ['fs_write'],
    askUser: true,
    maxTurns: 5,
    maxCostUsd: 0.5,
  };

  it("gives the client's start options from the agent, the caller's tenant and the request", () => {
    expect(
      startOptionsFor(
        'reader',
        agent,
        { task: 'T', caller: { tenant: 'acme', keyName: 'k' }, id: 'reader:1', continueFrom: 'reader:0' },
        { workspace: '/srv' },
      ),
    ).toEqual({
      task: 'T',
      model: 'anthropic/claude-sonnet-4-6',
      stream: true,
      systemPrompt: 'Be brief.',
      tools: { allow: ['fs_read'], workspaceRoot: '/srv', approve: ['fs_write'], askUser: true },
      limits: { maxTurns: 5, maxCostUsd: 0.5 },
      fleet: { tenant: 'acme' },
      id: 'reader:1',
      continueFrom: 'reader:0',
    });
  });

  it("takes the gateway's model for an agent without one, and refuses when there is none", () => {
    expect(
      startOptionsFor('a', { description: 'd' }, { task: 'T', caller: {} }, { model: 'openai/gpt-5-mini' }),
    ).toEqual({
      task: 'T',
      model: 'openai/gpt-5-mini',
      stream: true,
    });
    expect(() => startOptionsFor('a', { description: 'd' }, { task: 'T', caller: {} })).toThrow(/names no model/);
  });

  it('refuses to serve beyond loopback without API keys, and bad agents', () => {
    const published = { reader: { description: 'reads' } };
    expect(gatewayProblems({ published, host: '127.0.0.1' })).toEqual([]);
    expect(gatewayProblems({ published, host: '0.0.0.0' })).toEqual([
      expect.stringMatching(/binds 0.0.0.0.*--keys FILE/),
    ]);
    expect(gatewayProblems({ published, host: '0.0.0.0', keys: [{ name: 'k', sha256: 'a'.repeat(64) }] })).toEqual([]);
    expect(gatewayProblems({ published: { 'bad name': { description: '' } } as never })).toEqual([
      expect.stringMatching(/a name is/),
    ]);
    expect(gatewayProblems({ published: { r: { description: '', tools: 'fs_read' } } as never })).toEqual([
      'agent "r" needs a description',
      'agent "r": tools must be a list of names',
    ]);
  });
});
