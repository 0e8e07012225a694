// Records the history of a finished run into test/histories/<name>.json for the replay suite.
// Usage: npm run record-history -- <workflowId> [--run-id <runId>] [--name <file name>] [--dir <directory>]
// Connects with TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (default localhost:7233, default).
import path from 'node:path';
import { connectClient, connectionSettingsFromEnv } from '../src/connection/connection-settings';
import { recordHistory } from '../src/testing/record-history';

const HISTORIES_DIR = path.join(__dirname, '..', 'test', 'histories');

interface Args {
  workflowId: string;
  runId?: string;
  name: string;
  dir: string;
}

function parseArgs(argv: string[]): Args {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--run-id' || arg === '--name' || arg === '--dir') {
      const value = argv[++i];
      if (!value) throw new Error(`${arg} needs a value`);
      flags[arg] = value;
    } else if (arg.startsWith('--')) {
      throw new Error(`unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 1)
    throw new Error('usage: record-history <workflowId> [--run-id <runId>] [--name <file name>] [--dir <directory>]');
  const name = flags['--name'] ?? positional[0];
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(name))
    throw new Error(`"${name}" is not a plain file name: pass --name with letters, digits, . _ -`);
  return {
    workflowId: positional[0],
    runId: flags['--run-id'],
    name,
    dir: path.resolve(flags['--dir'] ?? HISTORIES_DIR),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const client = await connectClient(connectionSettingsFromEnv());
  try {
    const file = path.join(args.dir, `${args.name}.json`);
    const recorded = await recordHistory(client, args.workflowId, file, { runId: args.runId, closedOnly: true });
    process.stdout.write(
      `Recorded ${recorded.workflowType} ${args.workflowId} (${recorded.status}) to ${path.relative(process.cwd(), file)}\n`,
    );
  } finally {
    await client.connection.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`record-history: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`);
  process.exitCode = 1;
});
