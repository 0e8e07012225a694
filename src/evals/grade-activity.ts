/**
 * The eval workflow's grading activity (docs/evals.md): reads what a case's ended run did, its
 * state's events from a worker and its conversation from the content store, and grades it with the
 * case's graders written as data, as {@link outcomeOf} grades every case.
 */
import { Context } from '@temporalio/activity';
import { readRunMessages } from '../client/run-messages';
import { stateQuery } from '../contracts/agent-workflows';
import type { ConversationReader } from '../contracts/conversation-log';
import type { EvalActivities } from '../contracts/eval-workflow';
import type { Grader } from './eval-case';
import { caseRunOf, outcomeOf } from './run-case';

/** The eval activities the worker plugin registers, reading conversations from the worker's store. */
export function createEvalActivities(store: ConversationReader): EvalActivities {
  return {
    async gradeEvalCase({ name, id, graders, result, latencyMs }) {
      const { client } = Context.current();
      const reads = {
        state: (run: string) => client.workflow.getHandle(run).query(stateQuery),
        messages: (run: string) => readRunMessages(store, run),
      };
      // The client checked every grader of the case before the eval started.
      const run = await caseRunOf(reads, graders, id, result, latencyMs);
      return outcomeOf({ name, graders: graders as Grader[] }, id, run);
    },
  };
}
