/**
 * Roles as data. A role definition names its output component, its zod schema and whether
 * it may call tools; prompt assembly, JSON schema output, parsing and the corrective re-ask work
 * from the definition alone, for the core roles and any other.
 */
import { z } from 'zod';
import type { ResponseFormat } from '../../contracts/message-model';
import { answerSchemas, type ExecutorResponse, type PlannerResponse, type VerifierResponse } from './answer-schemas';

export interface PevRoleDefinition<T = unknown> {
  /** Role name, also the key of its core template and business context (`planner`, `reviewer`, ...). */
  name: string;
  /** The `component` value of its JSON answer, e.g. `planner-response`. */
  component: string;
  /** Validates the extracted JSON object; its output type is what the workflow works with. */
  schema: z.ZodType<T>;
  /** Whether the role runs a tool-calling loop (only the executor does by default). */
  usesTools: boolean;
}

export const CORE_ROLE_NAMES = ['planner', 'executor', 'verifier'] as const;

/**
 * A core role, its schema built on first use. The getter is the class's, not the role's own
 * property: a worker freezes the modules its runs share, and freezing reads every own property, so
 * an own getter would build the schemas then and freeze them before they fill in their lazy fields.
 */
class CoreRole<T> implements PevRoleDefinition<T> {
  constructor(
    readonly name: string,
    readonly component: string,
    readonly usesTools: boolean,
    private readonly pick: (schemas: ReturnType<typeof answerSchemas>) => z.ZodType<T>,
  ) {}

  get schema(): z.ZodType<T> {
    return this.pick(answerSchemas());
  }
}

export const plannerRole = new CoreRole<PlannerResponse>('planner', 'planner-response', false, (s) => s.planner);
export const executorRole = new CoreRole<ExecutorResponse>('executor', 'executor-response', true, (s) => s.executor);
export const verifierRole = new CoreRole<VerifierResponse>('verifier', 'verifier-response', false, (s) => s.verifier);

/** The built-in planner, executor and verifier, by name. */
export const coreRoles = (): Readonly<Record<string, PevRoleDefinition | undefined>> => ({
  planner: plannerRole,
  executor: executorRole,
  verifier: verifierRole,
});

/** JSON Schema of a role's answer, for providers with schema-constrained output. */
export function jsonSchemaOf(role: PevRoleDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(role.schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** The `responseFormat` call option asking the provider for a role's JSON answer. */
export function responseFormatOf(role: PevRoleDefinition): ResponseFormat {
  return {
    type: 'json_schema',
    name: role.component.replace(/[^a-zA-Z0-9_-]/g, '_'),
    schema: jsonSchemaOf(role),
    strict: false,
  };
}
