/** Stores each role's system prompt and response format once per run, so model calls carry only a hash. */
import type { StoredCallPrompt } from '../../contracts/agent-activities';
import { coreRoles, responseFormatOf } from '../../policy/pev/roles';
import { systemPromptOf } from '../../policy/pev/prompt-template';
import { type PreparePevPromptsInput, type PreparedPevPrompts } from '../../contracts/pev-activities';
import type { ContentStore } from '../../store';
import { fromStore } from '../agent/conversation-view';
import { loadPevPrompts } from './load-prompts';

export function preparePevPromptsActivity(store: ContentStore) {
  return async function preparePevPrompts(input: PreparePevPromptsInput): Promise<PreparedPevPrompts> {
    const prompts = await loadPevPrompts(input);
    const known = coreRoles();
    const prepared: PreparedPevPrompts = { roles: {} };
    for (const role of Object.keys(prompts.templates)) {
      const systemPrompt = systemPromptOf(prompts, role);
      const definition = known[role];
      const body: StoredCallPrompt = {
        systemPrompt,
        ...(input.structuredOutput && definition ? { responseFormat: responseFormatOf(definition) } : {}),
      };
      const promptHash = await fromStore(() => store.put(body, input.conversationId));
      prepared.roles[role] = { promptHash, systemPromptChars: systemPrompt.length };
    }
    return prepared;
  };
}
