/**
 * The shape of the provider configuration file, with the range of every number it holds; a value
 * out of range is refused with a message naming its field.
 */
import { z } from 'zod';
import { rangeProblem, type NumberRange } from '../common/decimal';

const capabilitiesSchema = z.strictObject({
  tools: z.boolean().default(true),
  thinking: z.boolean().default(false),
  vision: z.boolean().default(false),
  jsonMode: z.boolean().default(false),
  adaptiveThinking: z.boolean().optional(),
});

/** Model calls a minute a limit allows: from one in 100 minutes to a million. */
export const REQUESTS_PER_MINUTE: NumberRange = { what: 'a number', min: 0.01, max: 1_000_000 };
/** Model calls one worker runs at once. */
export const CONCURRENCY: NumberRange = { what: 'a whole number', min: 1, max: 100_000, integer: true };
const TOKENS: NumberRange = { what: 'a whole number of tokens', min: 1, max: 1_000_000_000, integer: true };
const PRICE: NumberRange = { what: 'a number of USD per million tokens', min: 0, max: 1_000_000 };
const MILLISECONDS: NumberRange = { what: 'a whole number of milliseconds', min: 1, max: 86_400_000, integer: true };

/** A number of the file in `range`, refused with a message that names the field and the range. */
const ranged = (field: string, range: NumberRange) =>
  z.number().superRefine((value, ctx) => {
    const problem = rangeProblem(value, range);
    if (problem) ctx.addIssue({ code: 'custom', message: `${field} ${problem}` });
  });

const pricesSchema = z.strictObject({
  input: ranged('input', PRICE),
  output: ranged('output', PRICE),
  cacheRead: ranged('cacheRead', PRICE).default(0),
  cacheWrite: ranged('cacheWrite', PRICE).default(0),
});

const callLimitsSchema = z.strictObject({
  requestsPerMinute: ranged('requestsPerMinute', REQUESTS_PER_MINUTE),
  concurrency: ranged('concurrency', CONCURRENCY).optional(),
});

const providerEntrySchema = z.strictObject({
  api: z.enum(['anthropic', 'openai']).optional(),
  baseUrl: z.url().optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional(),
  apiKeyRequired: z.boolean().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  limits: callLimitsSchema.optional(),
});

const modelEntrySchema = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  contextWindow: ranged('contextWindow', TOKENS),
  maxOutputTokens: ranged('maxOutputTokens', TOKENS),
  capabilities: capabilitiesSchema.prefault({}),
  prices: pricesSchema.prefault({ input: 0, output: 0 }),
  idleTimeoutMs: ranged('idleTimeoutMs', MILLISECONDS).optional(),
  limits: callLimitsSchema.optional(),
});

export const configFileSchema = z.strictObject({
  providers: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'provider names are lowercase [a-z0-9._-]'), providerEntrySchema)
    .default({}),
  models: z.array(modelEntrySchema).default([]),
  timeoutMs: ranged('timeoutMs', MILLISECONDS).optional(),
  idleTimeoutMs: ranged('idleTimeoutMs', MILLISECONDS).optional(),
  /** Sub-agents runs started by the CLI may delegate to; read by the client (`cli/agents-file.ts`), not the worker. */
  agents: z.record(z.string(), z.unknown()).optional(),
  /** The worker's MCP servers and whether runs may bring their own: read by `tools/mcp/worker-servers.ts`. */
  mcpServers: z.unknown().optional(),
  runMcpConfigs: z.unknown().optional(),
});

export type LlmConfigFile = z.input<typeof configFileSchema>;
