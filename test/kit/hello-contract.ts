/** Activities the hello workflow calls. */
export interface HelloActivities {
  composeGreeting(name: string): Promise<string>;
}
