/**
 * The reflect kind (reflect-agent.ts) at the edges: its `reflect` start options, the `--critique`
 * flag `run --agent reflect` takes, and its stage, draft and critique in `state`. Given to the
 * client (`new AgentClient(client, queue, { kinds: [reflectEdge] })`) and to the CLI
 * (reflect-agent-cli.ts), it starts and shows like a built-in kind.
 */
import { kindFlag, type AgentStateView, type KindEdge } from '../src/client';
import type { ReflectOptions, ReflectState } from './reflect-agent';
import { REFLECT_FACTS } from './reflect-agent-facts';

declare module '../src/client' {
  interface KindStartOptions {
    /** Options of the reflect kind (`kind: 'reflect'` only). */
    reflect?: ReflectOptions;
  }
}

const firstLine = (text: string): string => text.split('\n').find((l) => l.trim() !== '') ?? '';

export const reflectEdge: KindEdge<ReflectOptions> = {
  facts: REFLECT_FACTS,
  optionsKey: 'reflect',
  optionProblems: (options) => (options?.critique?.trim() === '' ? ['reflect.critique is empty'] : []),
  details: (options) => (options.critique ? [`- **Critique** ${firstLine(options.critique)}`] : []),
  flags: [
    kindFlag(
      '--critique <prompt>',
      'what the critique turn asks of the first answer',
      undefined,
      (options: ReflectOptions, critique: string) => ({ ...options, critique }),
    ),
  ],
  stateLines(view: AgentStateView) {
    const reflect = (view as AgentStateView & { reflect?: ReflectState }).reflect;
    if (!reflect) return [];
    return [
      `stage ${reflect.stage}`,
      ...(reflect.draft ? [`  draft: ${firstLine(reflect.draft)}`] : []),
      ...(reflect.critique ? [`  critique: ${firstLine(reflect.critique)}`] : []),
    ];
  },
};
