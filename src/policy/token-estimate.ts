/**
 * Token estimates without a tokenizer. Latin text runs near four characters a token; CJK
 * ideographs, kana and hangul near one token per character, so they are counted apart.
 */

/** Hangul jamo, CJK radicals, kana, hangul compatibility jamo, ideographs, hangul syllables, fullwidth forms. */
const CJK_RANGES = [
  '\\u1100-\\u11ff',
  '\\u2e80-\\u2fdf',
  '\\u3000-\\u30ff',
  '\\u3130-\\u318f',
  '\\u3400-\\u4dbf',
  '\\u4e00-\\u9fff',
  '\\uac00-\\ud7af',
  '\\uf900-\\ufaff',
  '\\uff00-\\uffef',
];
const CJK = new RegExp(`[${CJK_RANGES.join('')}]`, 'g');

/** Estimated tokens of a piece of text. */
export function estimateTextTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil(cjk + (text.length - cjk) / 4);
}

/** Rough fixed cost of one image block. */
export const IMAGE_TOKENS = 1_200;
/** Per-message framing (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Fields whose strings reach the model; ids, roles, signatures and image data do not count as text. */
const TEXT_KEYS: ReadonlySet<string> = new Set(['text', 'thinking', 'content', 'name']);

/** Estimated tokens of any JSON-safe message body: text fields by script, images at a flat rate. */
export function estimateBodyTokens(body: unknown): number {
  let total = MESSAGE_OVERHEAD_TOKENS;
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key !== undefined && TEXT_KEYS.has(key)) total += estimateTextTokens(value);
    } else if (Array.isArray(value)) {
      value.forEach((v) => visit(v, key));
    } else if (value !== null && typeof value === 'object') {
      const obj = value as Record<string, unknown>;
      if (obj.type === 'image') {
        total += IMAGE_TOKENS;
        return;
      }
      for (const [k, v] of Object.entries(obj)) {
        if (k === 'arguments') total += estimateTextTokens(JSON.stringify(v));
        else visit(v, k);
      }
    }
  };
  visit(body);
  return total;
}
