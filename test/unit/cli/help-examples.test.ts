import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli';
import { HELP_EXAMPLES } from '../../../src/cli/help-examples';

const find = (program: Command, path: string): Command | undefined =>
  path.split(' ').reduce<Command | undefined>((c, name) => c?.commands.find((s) => s.name() === name), program);

const helpOf = (command: Command): string => {
  let text = '';
  command.configureOutput({ writeOut: (s) => void (text += s) });
  command.outputHelp();
  return text;
};

describe('--help examples', () => {
  const program = buildProgram();

  it.each(['run', 'watch', 'approve', 'schedule create', 'eval run', 'eval replay', 'score', 'fork', 'list'])(
    '%s --help ends with its examples',
    (path) => {
      const command = find(program, path);
      expect(command).toBeDefined();
      const help = helpOf(command!);
      expect(help).toMatch(/\nExamples:\n {2}# .+\n {2}(durable-agents|temporal) /);
      expect(help.indexOf('Examples:')).toBeGreaterThan(help.indexOf('--help'));
    },
  );

  it.each(Object.keys(HELP_EXAMPLES))('the examples of %s use only its own options and the global ones', (path) => {
    const command = find(program, path);
    expect(command).toBeDefined();
    const known = new Set([...command!.options, ...program.options].map((o) => o.long));
    const used = HELP_EXAMPLES[path]
      .flatMap(([, line]) => line.split('\n'))
      .filter((line) => line.startsWith(`durable-agents ${path} `))
      .flatMap((line) => line.match(/(?<=\s)--[a-z][a-z-]*/g) ?? []);
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((flag) => !known.has(flag))).toEqual([]);
  });
});
