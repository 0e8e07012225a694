/**
 * The texts of the log entries the workflow writes for people and tools, never for the model
 * (docs/hooks.md, Notes): a context note when the run changes model, system events when it waits
 * for a rate limit or its tenant's budget.
 */
import type { ModelSwitch } from '../contracts/model-resolution';

/** The context note of a provider switch. */
export const switchNote = (change: ModelSwitch): string =>
  `Model switched from ${change.from} to ${change.to} (${change.reason}).`;

/** The system event of a model call refused for its rate limit, before the run waits. */
export const rateLimitNote = (model: string, seconds: number): string =>
  `Rate limited by ${model}: calling it again in ${seconds} s.`;

/** The system event of a tenant's budget refusing a call, or making it wait. */
export const budgetNote = (tenant: string, what: 'refused' | 'waiting', message: string): string =>
  what === 'refused'
    ? `Tenant ${tenant}'s budget refused a model call: ${message}.`
    : `Tenant ${tenant}'s budget holds a model call back: ${message}.`;
