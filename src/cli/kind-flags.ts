/**
 * The flags each agent kind brings (`KindEdge.flags`) on the commands that start runs, and the
 * kind's own options read from them. A kind's flags given with another `--agent` are refused.
 */
import { Option, type Command } from 'commander';
import type { KindEdge, KindFlag, KindRegistry } from '../kinds';
import { UsageError, usage } from './exit-codes';
import { commanderParser } from './option-parsers';

const optionOf = (edge: KindEdge, flag: KindFlag): Option => {
  const option = new Option(flag.flags, `${edge.facts.name} agent: ${flag.description}`);
  return flag.parse ? option.argParser(commanderParser(flag.parse.bind(flag))) : option;
};

/** Declares every kind's flags on a command that starts runs. */
export function kindFlags(command: Command, kinds: KindRegistry): Command {
  for (const edge of kinds.edges) for (const flag of edge.flags ?? []) command.addOption(optionOf(edge, flag));
  return command;
}

/** The flags of `edge` that were given, with their values. */
function given(edge: KindEdge, flags: Record<string, unknown>): [KindFlag, string, unknown][] {
  return (edge.flags ?? []).flatMap((flag): [KindFlag, string, unknown][] => {
    const option = new Option(flag.flags);
    const value = flags[option.attributeName()];
    return value === undefined ? [] : [[flag, option.long ?? flag.flags, value]];
  });
}

const listed = (names: string[]): string =>
  names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/**
 * The options of the kind `agent` its flags ask for, or undefined when none was given. Refuses the
 * flags of another kind, naming them; a flag that cannot be applied (a file it cannot read) is a
 * usage error with its reason.
 */
export function kindOptionsOf(agent: string, flags: Record<string, unknown>, kinds: KindRegistry): unknown {
  let own: unknown;
  for (const edge of kinds.edges) {
    const values = given(edge, flags);
    if (values.length === 0) continue;
    if (edge.facts.name !== agent) {
      const names = values.map(([, name]) => name);
      throw new UsageError(
        `${listed(names)} appl${names.length === 1 ? 'ies' : 'y'} to --agent ${edge.facts.name} only`,
      );
    }
    own = usage(() => values.reduce((options, [flag, , value]) => flag.apply(options, value), {} as unknown));
  }
  return own;
}
