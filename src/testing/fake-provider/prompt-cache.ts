/**
 * Prompt caching as each wire format bills it, over a token per four characters of a canonical
 * rendering of the prompt. The cache is an in-memory set of prefix hashes without expiry, keyed by
 * the provider prefix and the model; a hit is reported only for a prefix an earlier request wrote.
 *
 * - Anthropic: explicit `cache_control` breakpoints over tools, then system, then messages. A
 *   request reads the longest prefix written before that ends at one of its breakpoints or at one
 *   of the 20 blocks before each; it writes the prefix at every breakpoint past that point
 *   (`cache_creation_input_tokens`), and the rest is uncached input.
 * - OpenAI: automatic caching of prompts of 1,024 tokens or more, in 128-token steps; the cached
 *   part is reported inside `prompt_tokens` as `prompt_tokens_details.cached_tokens`.
 */
import { createHash } from 'node:crypto';

export interface PromptUsage {
  /** Uncached input tokens. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The shortest prefix either API caches, in tokens. */
const MIN_CACHED_TOKENS = 1024;
/** OpenAI's cached prefixes grow in steps of this many tokens. */
const OPENAI_STEP_TOKENS = 128;
/** How many blocks before a breakpoint Anthropic looks back for an earlier cached prefix. */
const LOOKBACK_BLOCKS = 20;
const CHARS_PER_TOKEN = 4;

const tokensOf = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/** A block's text for hashing and counting: its JSON without cache markers, which a cache ignores. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v)) ?? '';

interface Segment {
  text: string;
  breakpoint: boolean;
}

type Block = { cache_control?: unknown } & Record<string, unknown>;
const blocksOf = (content: unknown): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as Block[]) : [];

/** An Anthropic request as cacheable blocks, in the order the API caches them: tools, system, messages. */
function anthropicSegments(body: Record<string, unknown>): Segment[] {
  const segment = (block: Block, prefix = ''): Segment => ({
    text: prefix + canonical(block),
    breakpoint: block.cache_control !== undefined,
  });
  const tools = Array.isArray(body.tools) ? (body.tools as Block[]) : [];
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  return [
    ...tools.map((t) => segment(t)),
    ...blocksOf(body.system).map((b) => segment(b, 'system:')),
    ...messages.flatMap((m) => blocksOf(m.content).map((b, i) => segment(b, i === 0 ? `${m.role}:` : ''))),
  ];
}

/** The whole prompt of an OpenAI request as one text: tools, then messages. */
const openaiText = (body: Record<string, unknown>): string =>
  canonical(body.tools ?? []) + (Array.isArray(body.messages) ? body.messages.map(canonical).join('') : '');

export interface PromptCache {
  /** Bills one request's prompt against the cache and writes what the request caches. */
  bill(api: 'anthropic' | 'openai', scope: string, body: Record<string, unknown>): PromptUsage;
}

export function createPromptCache(): PromptCache {
  const written = new Set<string>();

  function anthropic(scope: string, body: Record<string, unknown>): PromptUsage {
    const segments = anthropicSegments(body);
    const hash = createHash('sha256').update(`${scope}\n`);
    let chars = 0;
    const ends = segments.map((s) => {
      chars += s.text.length;
      hash.update(s.text);
      return { tokens: tokensOf(chars), key: hash.copy().digest('hex') };
    });
    const total = tokensOf(chars);
    const breakpoints = segments.flatMap((s, i) => (s.breakpoint ? [i] : []));
    let read = -1;
    for (const b of breakpoints) {
      for (let j = b; j >= Math.max(0, b - LOOKBACK_BLOCKS); j--) {
        if (written.has(ends[j].key)) {
          read = Math.max(read, j);
          break;
        }
      }
    }
    const readTokens = read >= 0 ? ends[read].tokens : 0;
    let writeEnd = readTokens;
    for (const b of breakpoints) {
      if (b <= read || ends[b].tokens < MIN_CACHED_TOKENS) continue;
      written.add(ends[b].key);
      writeEnd = Math.max(writeEnd, ends[b].tokens);
    }
    return { input: Math.max(0, total - writeEnd), cacheRead: readTokens, cacheWrite: writeEnd - readTokens };
  }

  function openai(scope: string, body: Record<string, unknown>): PromptUsage {
    const text = openaiText(body);
    const total = tokensOf(text.length);
    const hash = createHash('sha256').update(`${scope}\n`);
    let hashed = 0;
    let cached = 0;
    for (let tokens = MIN_CACHED_TOKENS; tokens <= total; tokens += OPENAI_STEP_TOKENS) {
      const end = Math.min(text.length, tokens * CHARS_PER_TOKEN);
      hash.update(text.slice(hashed, end));
      hashed = end;
      const key = hash.copy().digest('hex');
      if (written.has(key)) cached = tokens;
      else written.add(key);
    }
    return { input: total - cached, cacheRead: cached, cacheWrite: 0 };
  }

  return {
    bill: (api, scope, body) => (api === 'anthropic' ? anthropic(scope, body) : openai(scope, body)),
  };
}
