import type { Command } from 'commander';
import { whileOpen } from '../../common/while-open';
import {
  GATEWAY_PROTOCOLS,
  gatewayProblems,
  readApiKeys,
  startGateway,
  type GatewayProtocol,
  type PublishedAgents,
} from '../../gateway';
import { configSubAgents, readSubAgents } from '../agents-file';
import { connectAgents, type GlobalOptions } from '../cli-context';
import { UsageError, usage } from '../exit-codes';
import { parsePort } from '../option-parsers';
import { waitForStopSignal } from '../stop-signal';
import { openStore } from '../../store';
import { storeConfig } from '../../worker/worker-config';
import { printNotice } from '../terminal-text';

interface ServeOptions {
  port: number;
  bind: string;
  agents?: string;
  keys?: string;
  model?: string;
  workspace?: string;
  publicUrl?: string;
  mcp?: boolean;
  a2a?: boolean;
  agUi?: boolean;
  responses?: boolean;
  json?: boolean;
}

/**
 * `durable-agents serve`: the gateway that publishes the config file's agents (or `--agents FILE`)
 * over MCP, A2A, AG-UI and Open Responses (docs/gateway.md).
 */
export function registerServeCommand(program: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  program
    .command('serve')
    .description('Publish agents over MCP (with Tasks), A2A, AG-UI and Open Responses: one stateless HTTP gateway.')
    .option('--port <port>', 'port to listen on', parsePort, 8080)
    .option('--bind <host>', 'address to bind; beyond loopback an API key file is required', '127.0.0.1')
    .option(
      '--agents <file>',
      "the agents to publish (the config file's `agents` by default, declared as sub-agents are)",
    )
    .option('--keys <file>', 'API keys: { "keys": [ { "name", "sha256", "tenant", "agents", "requestsPerMinute" } ] }')
    .option('--model <spec>', 'the model of agents that name none (default: $DURABLE_AGENTS_MODEL)')
    .option('--workspace <dir>', 'the root the file tools of the runs are jailed to, on the workers')
    .option('--public-url <url>', 'the URL clients reach the gateway at, for the A2A agent card')
    .option('--mcp', 'serve MCP at /mcp')
    .option('--a2a', 'serve A2A at /a2a and its card at /.well-known/agent-card.json')
    .option('--ag-ui', 'serve AG-UI at /ag-ui/{agent}')
    .option('--responses', 'serve Open Responses at /v1/responses')
    .option('--json', 'print one JSON line once it listens')
    .addHelpText('after', '\nWithout --mcp, --a2a, --ag-ui or --responses it serves all four.')
    .action(async (options: ServeOptions) => {
      const published = (readSubAgents(options.agents) ?? configSubAgents(env)) as PublishedAgents | undefined;
      if (!published)
        throw new UsageError('no agent to publish: declare `agents` in the config file or pass --agents FILE');
      const chosen = GATEWAY_PROTOCOLS.filter((p) => options[protocolFlag(p)]);
      const keys = usage(() => (options.keys ? readApiKeys(options.keys) : undefined));
      const problems = gatewayProblems({ published, host: options.bind, ...(keys ? { keys } : {}) });
      if (problems.length > 0) throw new UsageError(problems.join('; '));
      // The content store the workers stream tokens through, as `watch` reads it; closed after the client.
      await whileOpen(openStore(storeConfig(env)), (store) =>
        whileOpen(connectAgents(globals(), env, printNotice), async ({ agents }) => {
          const model = options.model ?? (env.DURABLE_AGENTS_MODEL || undefined);
          const gateway = await startGateway({
            agents,
            published,
            defaults: { ...(model ? { model } : {}), ...(options.workspace ? { workspace: options.workspace } : {}) },
            port: options.port,
            host: options.bind,
            tokens: store,
            ...(keys ? { keys } : {}),
            ...(chosen.length ? { protocols: chosen } : {}),
            ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
            log: printNotice,
          }).catch((err: unknown) => {
            throw new UsageError((err as Error).message);
          });
          const protocols = chosen.length ? chosen : GATEWAY_PROTOCOLS;
          const names = Object.keys(published);
          if (options.json)
            process.stdout.write(
              `${JSON.stringify({ url: gateway.url, protocols, agents: names, keys: Boolean(keys) })}\n`,
            );
          else
            process.stdout.write(
              `Gateway at ${gateway.url} (${protocols.join(', ')}) publishing ${names.join(', ')}` +
                `${keys ? `, ${keys.length} API key(s)` : ', no API keys (loopback only)'}\nPress Ctrl-C to stop.\n`,
            );
          await waitForStopSignal();
          await gateway.close();
        }),
      );
    });
}

const protocolFlag = (p: GatewayProtocol): 'mcp' | 'a2a' | 'agUi' | 'responses' => (p === 'ag-ui' ? 'agUi' : p);
