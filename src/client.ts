/**
 * The typed client API of durable-agents. Run directly (`node dist/client.js`), it is the CLI.
 */
export * from './client/connection';
export * from './client/index';

if (require.main === module) {
  // Required lazily so library users of the client API do not load the CLI and the worker.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cli = require('./cli/index') as typeof import('./cli/index');
  void cli.main(process.argv);
}
