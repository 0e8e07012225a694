/** A score record (contracts/run-scores.ts): its search attributes are set when it starts; it keeps the score. */
import type { RunScore } from '../contracts/run-scores';

export async function scoreRecordWorkflow(score: RunScore): Promise<RunScore> {
  return score;
}
