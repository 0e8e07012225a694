/**
 * A problem with the user's setup (missing CLI, taken port, unreachable server).
 * Its message is one actionable line; the CLI prints it without a stack trace.
 */
export class SetupError extends Error {
  override readonly name: string = 'SetupError';
}

/** No Temporal server answers at the configured address. */
export class UnreachableServerError extends SetupError {
  override readonly name: string = 'UnreachableServerError';
}
