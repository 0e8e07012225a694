/**
 * From a model's text to a validated role answer: extract, validate, and when that fails, the
 * one corrective re-ask message. What happens after a second failure is each role's fallback
 * (see `fallbacks.ts`).
 */
import type { z } from 'zod';
import { extractJsonObject, type ExtractMethod } from '../extract-json';
import { jsonSchemaOf, type PevRoleDefinition } from './roles';

export type ParsedAnswer<T> = { ok: true; value: T; method: ExtractMethod } | { ok: false; problems: string[] };

/** One line for a schema issue: where, and what. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length ? issue.path.map(String).join('.') : '(root)';
  return `${path}: ${issue.message}`;
}

/** Parses a role's answer. Never throws: a bad answer comes back as a list of problems. */
export function parseRoleAnswer<T>(role: PevRoleDefinition<T>, text: string): ParsedAnswer<T> {
  const extracted = extractJsonObject(text);
  if (!extracted.ok) return { ok: false, problems: [extracted.reason] };
  const result = role.schema.safeParse(extracted.value);
  if (!result.success) return { ok: false, problems: result.error.issues.slice(0, 12).map(describeIssue) };
  return { ok: true, value: result.data, method: extracted.method };
}

/**
 * The user message sent once after an invalid answer: what was wrong, and the exact shape
 * expected. The model answers again in the same conversation.
 */
export function correctiveReask(role: PevRoleDefinition, problems: string[]): string {
  return [
    `Your previous answer could not be used as a ${role.component} JSON object:`,
    ...problems.map((p) => `- ${p}`),
    '',
    `Answer again with exactly one JSON object (no prose, no code fence) with "type": "component" and ` +
      `"component": "${role.component}", following this JSON Schema:`,
    JSON.stringify(jsonSchemaOf(role)),
  ].join('\n');
}
