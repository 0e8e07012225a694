/**
 * What continue-as-new carries has a version: a run carried by code of another version fails at
 * once, saying which versions met, instead of reading a shape it does not know. The `state` view
 * says its own version.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { CARRIED_INPUT_VERSION, type AgentWorkflowInput } from '../../src/contracts/agent-workflows';
import { REACT_FACTS } from '../../src/policy/kind-facts';
import { STATE_VIEW_VERSION } from '../../src/contracts/agent-run';
import { AGENT_FAILURE } from '../../src/contracts/failure-types';
import { runSpec } from '../kit/run-spec';
import { carryState, initialState } from '../../src/policy/agent-state';
import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from './agent-kit';

describe('versions of what a run carries and shows', () => {
  const fx = useAgentFixture();

  it('a carried input of an unknown version fails the run with a clear error; the state view says its version', async () => {
    const config = runSpec({ task: 'Go on.', model: PRIMARY });
    const carry = carryState(initialState(config, 'agent-carried'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const start = (input: AgentWorkflowInput, workflowId: string) =>
        client.workflow.execute(REACT_FACTS.workflowType, { taskQueue, workflowId, args: [input] });
      const failure = await start(
        { config, carry, carriedVersion: CARRIED_INPUT_VERSION + 1 },
        'agent-carried-v2',
      ).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe(AGENT_FAILURE.carriedVersion);
      expect(cause.message).toBe(
        `This run was carried over by continue-as-new with input version ${CARRIED_INPUT_VERSION + 1}; ` +
          `this workflow code reads version ${CARRIED_INPUT_VERSION}. Run it on workers of the code that carried it.`,
      );
      const unversioned = await start({ config, carry }, 'agent-carried-none').catch((err: unknown) => err);
      expect(((unversioned as WorkflowFailedError).cause as ApplicationFailure).message).toContain(
        'with input version none',
      );

      fx.fake.script(reply.text('Done.'));
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Answer.', model: PRIMARY });
      await agents.result(id);
      expect((await agents.state(id)).version).toBe(STATE_VIEW_VERSION);
    });
  });
});
