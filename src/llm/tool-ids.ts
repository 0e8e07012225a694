/**
 * Tool-call ids travel with the conversation from provider to provider, but each API has its
 * own id rules. Ids are mapped deterministically at the request boundary, so a call and its
 * result always map to the same id and the stored conversation keeps the original ids.
 */
import { createHash } from 'node:crypto';

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
const ANTHROPIC_MAX = 64;
const OPENAI_MAX = 40;

const digest = (id: string, length: number): string =>
  createHash('sha256')
    .update(id)
    .digest('base64url')
    .replace(/[^a-zA-Z0-9]/g, '')
    .slice(0, length);

/** Anthropic `tool_use.id`: `^[a-zA-Z0-9_-]+$`. */
export function toAnthropicToolId(id: string): string {
  if (ANTHROPIC_ID.test(id) && id.length <= ANTHROPIC_MAX) return id;
  return `toolu_${digest(id, 24)}`;
}

/** OpenAI `tool_calls[].id`: at most 40 characters. */
export function toOpenAIToolId(id: string): string {
  if (id.length > 0 && id.length <= OPENAI_MAX && !/\s/.test(id)) return id;
  return `call_${digest(id, 24)}`;
}
