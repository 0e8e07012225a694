import type { HelloActivities } from './hello-contract';

/** Activity side of the hello workflow. */
export function helloActivities(): HelloActivities {
  return {
    async composeGreeting(name: string): Promise<string> {
      return `Hello, ${name}!`;
    },
  };
}
