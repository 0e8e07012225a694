/**
 * The model a command uses when none is named: that of the provider whose key the environment
 * sets, Anthropic's first. `run`, `schedule create` and `demo` choose it the same way.
 */
const BY_KEY = [
  { key: 'ANTHROPIC_API_KEY', model: 'anthropic/claude-haiku-4-5' },
  { key: 'OPENAI_API_KEY', model: 'openai/gpt-4.1-mini' },
] as const;

/** The model chosen by a provider key, and the key; none when no key is set. */
export function modelByKey(env: NodeJS.ProcessEnv): { model: string; key: string } | undefined {
  return BY_KEY.find(({ key }) => env[key]);
}
