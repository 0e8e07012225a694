/**
 * The `durable-agents` command line with the reflect kind beside the built-in ones:
 * `run --agent reflect [--critique TEXT] TASK`, and `state` shows its stage. Run it with a worker
 * that registers `reflectAgentWorkflow` (reflect-agent.ts).
 */
import { main } from '../src/cli';
import { reflectEdge } from './reflect-agent-edge';

void main(process.argv, { kinds: [reflectEdge] });
