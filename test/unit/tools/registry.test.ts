import { z } from 'zod';
import type { ExecuteToolInput, ToolSelection } from '../../../src/contracts/tool-catalog';
import { ToolRegistrationError, ToolRegistry, defineTool } from '../../../src/tools';

function call(
  name: string,
  args: unknown,
  selection: ToolSelection = {},
): Omit<ExecuteToolInput, 'args'> & { args: unknown } {
  return { runId: 'run-1', toolCallId: `call-${name}`, name, args, selection };
}

function counted() {
  const calls: unknown[] = [];
  const tool = defineTool({
    name: 'add',
    description: 'Add two numbers',
    parameters: z.object({ a: z.number(), b: z.number(), note: z.object({ text: z.string() }).optional() }),
    execute(args) {
      calls.push(args);
      return { sum: args.a + args.b };
    },
  });
  return { tool, calls };
}

describe('malformed tool calls', () => {
  const big = 'x'.repeat(1_000_000);
  const cases: [string, string, unknown, RegExp][] = [
    ['bad JSON', 'add', '{"a": 1, "b": ', /not valid JSON/],
    ['JSON that is not an object', 'add', '[1, 2]', /must be a JSON object, got an array/],
    ['a number instead of an object', 'add', 42, /must be a JSON object, got number/],
    ['wrong types', 'add', { a: '1', b: 2 }, /expected number, received string/],
    ['a missing field', 'add', { a: 1 }, /expected number, received undefined\n.*at b/],
    ['an extra field', 'add', { a: 1, b: 2, c: 3 }, /Unrecognized key: "c"/],
    ['an extra field in JSON text', 'add', '{"a": 1, "b": 2, "admin": true}', /Unrecognized key: "admin"/],
    [
      'a __proto__ key',
      'add',
      JSON.parse('{"a": 1, "b": 2, "__proto__": {"polluted": true}}'),
      /key "__proto__" is not allowed/,
    ],
    [
      'a nested __proto__ key',
      'add',
      JSON.parse('{"a": 1, "b": 2, "note": {"text": "x", "__proto__": {"polluted": true}}}'),
      /key "note.__proto__" is not allowed/,
    ],
    [
      'a constructor key',
      'add',
      { a: 1, b: 2, constructor: { prototype: { polluted: true } } },
      /key "constructor" is not allowed/,
    ],
    [
      'a __proto__ key in JSON text',
      'add',
      '{"__proto__": {"polluted": true}, "a": 1, "b": 2}',
      /key "__proto__" is not allowed/,
    ],
    ['an unknown tool', 'subtract', { a: 1, b: 2 }, /Unknown tool "subtract"/],
    ['a 1 MB string', 'add', { a: 1, b: 2, note: { text: big } }, /too large/],
    ['a 1 MB string as JSON text', 'add', JSON.stringify({ a: 1, b: 2, note: { text: big } }), /too large/],
  ];

  it.each(cases)('%s gives an error result and runs nothing', async (_label, name, args, reason) => {
    const { tool, calls } = counted();
    const registry = new ToolRegistry().register(tool);
    const out = await registry.execute(call(name, args));
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(reason);
    expect(calls).toHaveLength(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names the problem so the model can fix its call', async () => {
    const { tool } = counted();
    const registry = new ToolRegistry().register(tool);
    expect((await registry.execute(call('add', { a: '1', b: 2 }))).content).toMatch(/expected number.*\n.*→ at a/);
    expect((await registry.execute(call('add', { a: 1, b: 2, c: 3 }))).content).toMatch(/Unrecognized key.*"c"/);
    expect((await registry.execute(call('subtract', {}))).content).toBe(
      'Unknown tool "subtract". Available tools: add',
    );
  });

  it('runs a valid call exactly once and formats the object result as JSON', async () => {
    const { tool, calls } = counted();
    const registry = new ToolRegistry().register(tool);
    const out = await registry.execute(call('add', '{"a": 2, "b": 3}'));
    expect(out).toMatchObject({ isError: false, content: JSON.stringify({ sum: 5 }, null, 2) });
    expect(calls).toEqual([{ a: 2, b: 3 }]);
  });
});

describe('tool registry', () => {
  it('shows the model a strict JSON Schema built from the zod schema', () => {
    const { tool } = counted();
    const [entry] = new ToolRegistry().register(tool).localEntries();
    expect(entry.parameters).toMatchObject({ type: 'object', required: ['a', 'b'], additionalProperties: false });
    expect(entry).toMatchObject({ mode: 'server', sideEffects: false, source: 'registered' });
    expect(entry.fingerprint).toMatch(/^[0-9a-f]{24}$/);
  });

  it('formats nothing as a success text, strings as they are, and caps long output', async () => {
    const registry = new ToolRegistry()
      .register(
        defineTool({ name: 'noop', description: 'nothing', parameters: z.object({}), execute: () => undefined }),
      )
      .register(defineTool({ name: 'say', description: 'text', parameters: z.object({}), execute: () => 'hello' }))
      .register(
        defineTool({
          name: 'flood',
          description: 'long',
          parameters: z.object({}),
          maxOutputChars: 200,
          execute: () => 'y'.repeat(5000),
        }),
      );
    expect((await registry.execute(call('noop', {}))).content).toMatch(/^Success/);
    expect((await registry.execute(call('say', {}))).content).toBe('hello');
    const flood = await registry.execute(call('flood', {}));
    expect(flood.truncated).toBe(true);
    expect(flood.content.length).toBeLessThanOrEqual(200);
    expect(flood.content).toMatch(/output truncated: 200 of 5000 characters/);
  });

  it('turns a tool exception into an error result', async () => {
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'boom',
        description: 'fails',
        parameters: z.object({}),
        execute: () => {
          throw new Error('disk on fire');
        },
      }),
    );
    expect(await registry.execute(call('boom', {}))).toMatchObject({
      isError: true,
      content: 'Tool "boom" failed: disk on fire',
    });
  });

  it('registers the functions of an object under a prefix, called with the object as this', async () => {
    class Notes {
      private readonly items: string[] = [];
      add({ text }: { text: string }) {
        this.items.push(text);
        return `stored ${this.items.length}`;
      }
      count() {
        return this.items.length;
      }
    }
    const notes = new Notes();
    const registry = new ToolRegistry();
    const names = registry.registerFunctions(
      notes,
      {
        add: { description: 'Store a note', parameters: z.object({ text: z.string() }), sideEffects: true },
        count: { description: 'Count notes', parameters: z.object({}) },
      },
      { prefix: 'notes_' },
    );
    expect(names).toEqual(['notes_add', 'notes_count']);
    expect((await registry.execute(call('notes_add', { text: 'hi' }))).content).toBe('stored 1');
    expect((await registry.execute(call('notes_count', {}))).content).toBe('1');
    expect(registry.localEntries().find((e) => e.name === 'notes_add')?.sideEffects).toBe(true);
    expect(() =>
      registry.registerFunctions(notes, { missing: { description: 'x', parameters: z.object({}) } }),
    ).toThrow(ToolRegistrationError);
  });

  it('refuses bad names and duplicates at registration', () => {
    const registry = new ToolRegistry();
    const tool = (name: string) =>
      defineTool({ name, description: 'd', parameters: z.object({}), execute: () => 'ok' });
    expect(() => registry.register(tool('has space'))).toThrow(/must match/);
    registry.register(tool('ok'));
    expect(() => registry.register(tool('ok'))).toThrow(/already registered/);
  });

  it('applies allow and deny lists to the catalogue and to execution', async () => {
    const registry = new ToolRegistry();
    for (const name of ['fs_read', 'fs_write', 'http_fetch']) {
      registry.register(
        defineTool({ name, description: name, parameters: z.object({}), execute: () => `ran ${name}` }),
      );
    }
    const selection = { allow: ['fs_*'], deny: ['fs_write'] };
    expect((await registry.catalog(selection)).tools.map((t) => t.name)).toEqual(['fs_read']);
    expect((await registry.execute(call('fs_write', {}, selection))).content).toBe(
      'Tool "fs_write" is not allowed in this run.',
    );
    expect((await registry.execute(call('http_fetch', {}, selection))).isError).toBe(true);
    expect((await registry.execute(call('fs_read', {}, selection))).content).toBe('ran fs_read');
  });

  it('refuses a call whose pinned fingerprint no longer matches the tool', async () => {
    const registry = new ToolRegistry().register(
      defineTool({ name: 't', description: 'v1', parameters: z.object({}), execute: () => 'ran' }),
    );
    const pinned = registry.localEntries()[0].fingerprint;
    expect((await registry.execute({ ...call('t', {}), fingerprint: pinned })).content).toBe('ran');
    const changed = new ToolRegistry().register(
      defineTool({ name: 't', description: 'v2: now deletes things', parameters: z.object({}), execute: () => 'ran' }),
    );
    const out = await changed.execute({ ...call('t', {}), fingerprint: pinned });
    expect(out).toMatchObject({ isError: true });
    expect(out.content).toMatch(/changed since this run's tool catalogue was pinned/);
  });

  it('passes an idempotency key made of run id and tool call id', async () => {
    const keys: string[] = [];
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'charge',
        description: 'side effect',
        parameters: z.object({}),
        sideEffects: true,
        execute: (_a, ctx) => void keys.push(ctx.idempotencyKey),
      }),
    );
    await registry.execute({ runId: 'r9', toolCallId: 'tc4', name: 'charge', args: {}, selection: {} });
    expect(keys).toEqual(['r9:tc4']);
  });
});

describe('tool deadlines', () => {
  it('answers with a timeout error when a tool outlives its timeout, and aborts its signal', async () => {
    let aborted = false;
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'hang',
        description: 'never finishes',
        parameters: z.object({}),
        timeoutMs: 50,
        execute: (_a, ctx) =>
          new Promise(() => {
            ctx.signal.addEventListener('abort', () => (aborted = true));
          }),
      }),
    );
    expect(await registry.execute(call('hang', {}))).toMatchObject({
      isError: true,
      content: 'Tool "hang" timed out after 50 ms.',
    });
    expect(aborted).toBe(true);
  });
});
