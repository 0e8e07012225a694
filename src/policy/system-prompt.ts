/** The system prompt of a run (or a sub-agent) that gives none. */
export const DEFAULT_SYSTEM_PROMPT_TEXT =
  'You are a capable assistant. Use the tools available when they help; when a tool fails, read its error and adapt. ' +
  'When the task is done, answer with the result.';
