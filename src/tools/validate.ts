import { z } from 'zod';

/** Limits applied to every tool call's arguments before any schema sees them. */
export interface ArgumentLimits {
  /** Length of the arguments as JSON. Default 200,000 characters. */
  maxChars: number;
  /** Nesting depth of objects and arrays. Default 32. */
  maxDepth: number;
}

export const DEFAULT_ARGUMENT_LIMITS: ArgumentLimits = { maxChars: 200_000, maxDepth: 32 };

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export type ArgumentCheck<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Turns what the model sent into a plain arguments object, or says why it cannot: a string must
 * be JSON of an object; keys that could reach prototypes are refused at any depth; size and depth
 * are capped. Nothing here runs the tool.
 */
export function checkRawArguments(raw: unknown, limits: ArgumentLimits): ArgumentCheck<Record<string, unknown>> {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.length > limits.maxChars) return tooLarge(raw.length, limits);
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return { ok: false, error: `Arguments are not valid JSON (${(err as Error).message}). Send a JSON object.` };
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      error: `Arguments must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}.`,
    };
  }
  let size: number;
  try {
    size = JSON.stringify(value).length;
  } catch {
    return { ok: false, error: 'Arguments must be plain JSON data.' };
  }
  if (size > limits.maxChars) return tooLarge(size, limits);
  const problem = findForbiddenKey(value, 0, limits.maxDepth, '');
  if (problem) return { ok: false, error: problem };
  return { ok: true, value: value as Record<string, unknown> };
}

function tooLarge(size: number, limits: ArgumentLimits): ArgumentCheck<never> {
  return {
    ok: false,
    error: `Arguments are too large (${size} characters; the limit is ${limits.maxChars}). Send less data per call.`,
  };
}

function findForbiddenKey(value: unknown, depth: number, maxDepth: number, path: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= maxDepth) return `Arguments are nested too deeply (limit ${maxDepth}).`;
  for (const key of Object.keys(value)) {
    const at = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) return `Argument key "${at}" is not allowed.`;
    const problem = findForbiddenKey((value as Record<string, unknown>)[key], depth + 1, maxDepth, at);
    if (problem) return problem;
  }
  return undefined;
}

/** Validates checked arguments against a tool's schema; the message lists every problem with its path. */
export function validateWithSchema<T>(schema: z.ZodType<T>, args: Record<string, unknown>): ArgumentCheck<T> {
  const result = schema.safeParse(args);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: `Invalid arguments:\n${z.prettifyError(result.error)}` };
}

/**
 * A validator for an MCP tool's JSON Schema. A top-level object schema that does not say
 * otherwise gets `additionalProperties: false`, matching the strictness of registered tools.
 * Schemas zod cannot convert fall back to the object check alone; the server validates too.
 */
export function schemaFromJsonSchema(jsonSchema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const strict =
    jsonSchema.type === 'object' && jsonSchema.additionalProperties === undefined
      ? { ...jsonSchema, additionalProperties: false }
      : jsonSchema;
  try {
    return z.fromJSONSchema(strict as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType<Record<string, unknown>>;
  } catch {
    return z.record(z.string(), z.unknown());
  }
}
