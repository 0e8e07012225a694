/**
 * Checks made before a run starts, so that a bad model spec or MCP file is a usage error and no
 * workflow is started: model specs with the one parser and the providers check the worker makes
 * before each call (over the same config file and environment), MCP files with the worker's parser.
 */
import { errorText } from '../common/error-text';
import type { ModelName } from '../contracts/model-ref';
import { loadLlmConfig } from '../llm';
import { modelNameProblem, modelRefOf, unknownProviderProblem } from '../policy/model-ref';
import { readMcpConfigFile } from '../tools';
import { UsageError } from './exit-codes';

const messageOf = (err: unknown): string => errorText(err);

/** Refuses a spec that does not parse, or whose provider no config knows. */
export function checkModelSpecs(specs: readonly ModelName[], env: NodeJS.ProcessEnv = process.env): void {
  if (specs.length === 0) return;
  let providers: string[];
  try {
    providers = Object.keys(loadLlmConfig({ env }).providers);
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
  for (const spec of specs) {
    const problem = modelNameProblem(spec) ?? unknownProviderProblem(modelRefOf(spec), providers);
    if (problem) throw new UsageError(problem);
  }
}

/** Refuses an MCP config file the worker could not use. */
export async function checkMcpFile(file: string): Promise<void> {
  try {
    await readMcpConfigFile(file);
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
}
