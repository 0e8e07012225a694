/**
 * Checks made before a run starts, so that a bad model spec is a usage error and no workflow is
 * started: model specs with the one parser and the providers check the worker makes before each
 * call (over the same config file and environment).
 */
import { modelLabel, type ModelName } from '../contracts/model-ref';
import { cliConfig } from './cli-config';
import { lookupModel } from '../policy/model-registry';
import { modelNameProblem, modelRefOf, unknownProviderProblem } from '../policy/model-ref';
import { UsageError } from './exit-codes';

/** Refuses a spec that does not parse, or whose provider no config knows. */
export function checkModelSpecs(specs: readonly ModelName[], env: NodeJS.ProcessEnv): void {
  if (specs.length === 0) return;
  const providers = Object.keys(cliConfig(env).providers);
  for (const spec of specs) {
    const problem = modelNameProblem(spec) ?? unknownProviderProblem(modelRefOf(spec), providers);
    if (problem) throw new UsageError(problem);
  }
}

/**
 * One warning line for each model (of specs already checked) that neither the registry nor the
 * config describes: its cost reads $0 and its context window and output limit are guesses.
 */
export function unknownModelWarnings(specs: readonly ModelName[], env: NodeJS.ProcessEnv): string[] {
  if (specs.length === 0) return [];
  const { models } = cliConfig(env);
  const unknown = specs.map(modelRefOf).filter((ref) => !lookupModel(ref, models).known);
  return [...new Set(unknown.map(modelLabel))].map(
    (spec) =>
      `warning: model "${spec}" is not in the model registry, so its cost and limits cannot be ` +
      'computed (its cost reads $0): declare it under `models` in the LLM config file',
  );
}
