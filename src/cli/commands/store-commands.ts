/**
 * Commands on the content store: `transcript` prints a run's conversation from the store, `gc`
 * deletes the conversations of runs closed longer ago than a window. Both use the store the
 * environment selects, as the worker does (DURABLE_AGENTS_STORE_URL, else DURABLE_AGENTS_STORE_DIR).
 */
import { whileOpen } from '../../common/while-open';
import type { Command } from 'commander';
import { openStore, type ContentStore } from '../../store';
import { storeConfig } from '../../worker/worker-config';
import { withTemporal, type GlobalOptions } from '../cli-context';
import { UsageError } from '../exit-codes';
import { decide, describeRun, parseAge, type GcDecision, type RunStatus } from '../gc';
import { TRANSCRIPT_MAX_CHARS, formatTranscript } from '../transcript';
import { commanderParser, decimalArg } from '../option-parsers';
import { noConversationMessage, readRunFamily, readRunMessages } from '../../client/run-messages';
import { printLine } from '../terminal-text';
import { json } from './agent-deps';

export function registerStoreCommands(program: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  program
    .command('transcript')
    .description(
      "Print a run's conversation from the content store, across continue-as-new " +
        '(works after Temporal dropped the run).',
    )
    .argument('<id>', 'workflow id of the run')
    .option('--json', 'one JSON array of messages (with --children: the run, its messages and its children)')
    .option(
      '--children',
      "each child run's conversation (sub-agents, todos run in parallel) under the call that started it",
    )
    .option(
      '--max-chars <n>',
      'print at most this many characters of each message, with a note of what was cut (0: all; --json prints all)',
      decimalArg({ what: 'a number of characters', min: 0, integer: true }),
      TRANSCRIPT_MAX_CHARS,
    )
    .action(async (id: string, options: { json?: boolean; children?: boolean; maxChars: number }) => {
      await whileOpen(openStore(storeConfig(env)), async (store) => {
        const family = options.children
          ? await readRunFamily(store, id)
          : { id, messages: await readRunMessages(store, id), children: [] };
        if (family.messages.length === 0) throw new UsageError(`${noConversationMessage(store, id)}.`);
        if (options.json) printLine(json(options.children ? family : family.messages));
        else printLine(formatTranscript(family.messages, family.children, options.maxChars));
      });
    });

  program
    .command('gc')
    .description(
      'Delete the logs, bodies and token streams of conversations whose run closed longer ago than --older-than; ' +
        'running runs are never touched.',
    )
    .requiredOption('--older-than <age>', 'window, e.g. 30d, 12h, 90m', commanderParser(parseAge))
    .option('--dry-run', 'print what would be deleted, delete nothing')
    .option(
      '--force',
      'also delete conversations Temporal cannot confirm closed, when their last write is older than the window',
    )
    .option('--json', 'one JSON object: the store, each decision, and what was deleted')
    .action(async (options: { olderThan: number; dryRun?: boolean; force?: boolean; json?: boolean }) => {
      await whileOpen(openStore(storeConfig(env)), async (store) => {
        const decisions = await gcDecisions(store, globals(), env, options.olderThan, options.force === true);
        const doomed = decisions.filter((d) => d.delete).map((d) => d.id);
        const deleted = options.dryRun ? undefined : await store.deleteConversations(doomed);
        if (options.json)
          return printLine(json({ store: store.description, dryRun: options.dryRun === true, decisions, deleted }));
        for (const d of decisions)
          printLine(`${d.delete ? (options.dryRun ? 'would delete' : 'delete') : 'keep'}  ${d.id}  (${d.reason})`);
        if (!deleted) {
          printLine(`Dry run: ${doomed.length} of ${decisions.length} conversations would be deleted; nothing was.`);
          return;
        }
        printLine(
          `Deleted ${deleted.conversations} conversations (${deleted.entries} log entries, ` +
            `${deleted.bodies} bodies no kept conversation uses, ${deleted.streams} token streams) ` +
            `from ${store.description}.`,
        );
      });
    });
}

/** What gc does with each conversation the store knows; Temporal unreachable fails the command unless `force`. */
async function gcDecisions(
  store: ContentStore,
  flags: GlobalOptions,
  env: NodeJS.ProcessEnv,
  olderThan: number,
  force: boolean,
): Promise<GcDecision[]> {
  const decideAll = async (runOf: (id: string) => Promise<RunStatus>): Promise<GcDecision[]> => {
    const cutoff = Date.now() - olderThan;
    const decisions: GcDecision[] = [];
    for (const conversation of await store.listConversations())
      decisions.push(decide(conversation, await runOf(conversation.id), cutoff, force));
    return decisions;
  };
  return withTemporal(
    flags,
    env,
    (client) => decideAll((id) => describeRun(client, id)),
    force
      ? ({ address }) =>
          decideAll(async () => ({ type: 'unknown', why: `Temporal at ${address} could not be reached` }))
      : undefined,
  );
}
