/**
 * The three structured answers of the Planner → Executor → Verifier rounds, validated with zod
 * at the one trust boundary they cross: model output. `type` / `component` are the fields
 * front-ends use to pick a renderer; they are constants, so a model that leaves them out is
 * filled in rather than re-asked.
 */
import { TODO_STATUSES } from '../../contracts/pev-progress';
import { z } from 'zod';

export const NEXT_ACTIONS = ['continue', 'complete', 'skip', 'retry'] as const;

/**
 * The answer schemas, built on first use: a run that never parses a PEV answer (every ReAct run)
 * never pays for building them, and a PEV run builds them once (workflow modules are per run).
 */
function buildAnswerSchemas() {
  /** Models often write `"true"` or `"2"` where a boolean or number belongs; accept those spellings only. */
  const looseBoolean = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
  const looseNumber = z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
    z.number(),
  );
  const statusSchema = z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(TODO_STATUSES));
  const idSchema = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1));

  const todoSchema = z.object({
    id: idSchema,
    description: z.string().min(1),
    /** 1 is the highest priority. */
    priority: looseNumber.pipe(z.number().int().min(1)).default(1),
    /** Ids of the todos whose results this one needs. */
    dependsOn: z
      .preprocess((v) => (typeof v === 'string' || typeof v === 'number' ? [v] : v), z.array(idSchema))
      .optional(),
    status: statusSchema.default('pending'),
    isCurrent: looseBoolean.optional(),
    /** The one tool call that does the todo, when the planner knows it: its tool and arguments. */
    tool: z.string().min(1).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  });

  const componentFields = <C extends string>(component: C) => ({
    type: z.literal('component').default('component'),
    component: z.literal(component).default(component),
  });

  const plannerResponseSchema = z.object({
    ...componentFields('planner-response'),
    summary: z.string().default(''),
    needsMorePlanning: looseBoolean.default(false),
    todos: z.array(todoSchema),
  });

  const executorResponseSchema = z.object({
    ...componentFields('executor-response'),
    summary: z.string().min(1),
    /** The primary completion signal; when absent, `nextAction` and then the todo's status decide. */
    taskCompleted: looseBoolean.optional(),
    shouldContinue: looseBoolean.optional(),
    nextAction: z
      .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(NEXT_ACTIONS))
      .optional(),
    todos: z.array(todoSchema).default([]),
  });

  const verifierTaskSchema = z.object({
    id: idSchema,
    completed: looseBoolean,
    feedback: z.string().default(''),
  });

  const verifierResponseSchema = z
    .object({
      ...componentFields('verifier-response'),
      allCompleted: looseBoolean,
      userNeedsSatisfied: looseBoolean,
      overallFeedback: z.string().default(''),
      summary: z.string().optional(),
      improvements: z.array(z.string()).optional(),
      tasks: z.array(verifierTaskSchema).default([]),
    })
    .superRefine((v, ctx) => {
      const passed = v.allCompleted && v.userNeedsSatisfied;
      if (passed && !v.summary?.trim()) {
        ctx.addIssue({
          code: 'custom',
          path: ['summary'],
          message:
            'summary is required when allCompleted and userNeedsSatisfied are both true: it is the final ' +
            'answer to the user',
        });
      }
      if (!passed && !v.improvements?.some((i) => i.trim())) {
        ctx.addIssue({
          code: 'custom',
          path: ['improvements'],
          message:
            'improvements (a non-empty array of strings) are required when allCompleted or userNeedsSatisfied is false',
        });
      }
    });
  return {
    planner: plannerResponseSchema,
    executor: executorResponseSchema,
    verifier: verifierResponseSchema,
  };
}

let built: ReturnType<typeof buildAnswerSchemas> | undefined;

/** The planner, executor and verifier answer schemas. */
export const answerSchemas = (): ReturnType<typeof buildAnswerSchemas> => (built ??= buildAnswerSchemas());

type Schemas = ReturnType<typeof buildAnswerSchemas>;
export type PlannerResponse = z.output<Schemas['planner']>;
export type ExecutorResponse = z.output<Schemas['executor']>;
export type VerifierResponse = z.output<Schemas['verifier']>;

export const isVerified = (v: VerifierResponse): boolean => v.allCompleted && v.userNeedsSatisfied;
