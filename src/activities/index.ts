import { helloActivities } from './hello';

/** Dependencies the activities need; grows as activity families are added. */
export type ActivityDependencies = Record<string, never>;

/** The full activity map the project's worker registers. */
export function createActivities(_deps: ActivityDependencies = {}) {
  return {
    ...helloActivities(),
  };
}
