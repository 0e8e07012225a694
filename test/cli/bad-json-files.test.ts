/**
 * A JSON file the CLI reads with a syntax error in it (the config file, `--messages`, `--agents`,
 * an eval case file, `--client-tools`) is one line naming the file, the line and the column, and
 * exit code 2; nothing starts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../kit/cli';
import { testConnection } from '../kit/temporal';
import { PRIMARY } from '../agent/agent-kit';

describe('bad JSON in a file the CLI reads', () => {
  let dir: string;
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, text);
    return at;
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bad-json-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names the file, the line and the column, and exits 2', async () => {
    const { address, namespace } = await testConnection();
    const good = file('good.json', '{}\n');
    const env = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_TASK_QUEUE: `nobody-${path.basename(dir)}`,
      DURABLE_AGENTS_CONFIG: good,
    };
    const config = file('config.json', '{\n  "providers": {\n    "local": { "api": "openai" },\n  }\n}\n');
    const messages = file('messages.json', '[\n  { "role": "user", "content": "hi" }\n  { "role": "user" }\n]\n');
    const agents = file(
      'agents.json',
      '{\n  "helper": {\n    "description": "helps",\n    "tools": [fs_read]\n  }\n}\n',
    );
    const evalCase = file('case.json', '{\n  "id": "c1",\n  "task": "Say hi.",\n}\n');
    const tools = file('tools.json', '[\n  { "name": "pick", "description": "x", "parameters": {} ]\n');
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [
        ['run', '--model', PRIMARY, 'Hi.'],
        { DURABLE_AGENTS_CONFIG: config },
        `LLM config file ${config} is not valid JSON: line 4, column 3: Expected double-quoted property name`,
      ],
      [
        ['run', '--model', PRIMARY, '--messages', messages, 'Hi.'],
        {},
        `--messages ${messages} is not valid JSON: line 3, column 3: Expected ',' or ']' after array element`,
      ],
      [
        ['run', '--model', PRIMARY, '--agents', agents, 'Hi.'],
        {},
        `--agents ${agents} is not valid JSON: line 4, column 15: Unexpected token 'fs_read'`,
      ],
      [
        ['eval', 'run', evalCase, '--model', PRIMARY],
        {},
        `${evalCase} is not valid JSON: line 4, column 1: Expected double-quoted property name`,
      ],
      [
        ['run', '--model', PRIMARY, '--client-tools', tools, 'Hi.'],
        {},
        `--client-tools ${tools} is not valid JSON: line 2, column 58: Expected ',' or '}' after property value`,
      ],
    ];
    for (const [args, extra, line] of cases) {
      const r = await runCli(args, { env: { ...env, ...extra } });
      expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        args,
        code: 2,
        stdout: '',
        stderr: `durable-agents: ${line}\n`,
      });
    }
  });
});
