/**
 * MCP at `/mcp` (Streamable HTTP, stateless: a server and transport of the official SDK per
 * request, no session): each published agent is a tool whose call runs it. A call that asks for a
 * task (2025-11-25's `task` parameter, or the 2026-07-28 Tasks extension's client capability)
 * answers at once with the task, whose id is the run's; `tasks/get` reads it (`input_required` with
 * an elicitation per call waiting for approval or an answer), `tasks/update` answers those with the
 * CLI's updates, `tasks/result` waits for its result and `tasks/cancel` stops it with its result.
 * A call without a task waits for the answer, with progress notifications while the run works.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as streamableHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AuthOutcome } from './api-keys';
import { rpcRefusal, type GatewayContext } from './gateway-context';
import {
  callToolResult,
  createTaskResult,
  detailedTask,
  TASKS_EXTENSION,
  wantsTask,
  answersOf,
  type TaskFacts,
} from './mcp-tasks';
import { AGENT_INPUT_SCHEMA, taskText } from './published-agents';
import { GatewayError, runEnd, type RunInput } from './run-bridge';

const UpdateTaskRequestSchema = z.object({
  method: z.literal('tasks/update'),
  params: z.looseObject({ taskId: z.string(), inputResponses: z.record(z.string(), z.unknown()) }),
});

/** Runs `fn`, a refusal becoming the SDK's error: an unknown task or agent is invalid params, as the spec has it. */
const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    throw new McpError(err.kind === 'forbidden' ? ErrorCode.InvalidRequest : ErrorCode.InvalidParams, err.message);
  }
};

const callIds = (inputs: RunInput[]): string => inputs.map((i) => i.toolCallId).join(', ');

/** What a task is now, read from its run. */
async function facts(ctx: GatewayContext, taskId: string): Promise<TaskFacts> {
  const d = await ctx.runs.agents.client.workflow.getHandle(taskId).describe();
  const dates = { createdAt: d.startTime.toISOString(), lastUpdatedAt: (d.closeTime ?? new Date()).toISOString() };
  if (d.status.name === 'RUNNING') {
    const state = await ctx.runs.agents.state(taskId);
    const inputs = await ctx.runs.inputs(taskId, state);
    return inputs.length > 0
      ? { taskId, status: 'input_required', ...dates, inputs, statusMessage: `waiting for ${callIds(inputs)}` }
      : { taskId, status: 'working', ...dates, statusMessage: `turn ${state.turn}` };
  }
  const result = await ctx.runs.agents.result(taskId);
  return { taskId, status: runEnd(result), ...dates, result, statusMessage: result.stopReason };
}

/** A server of the SDK for one request by one caller. */
function serverFor(ctx: GatewayContext, auth: Extract<AuthOutcome, { ok: true }>): Server {
  const { caller, may } = auth;
  const server = new Server(
    { name: 'durable-agents', version: '1.0.0' },
    {
      capabilities: {
        tools: {},
        tasks: { cancel: {}, requests: { tools: { call: {} } } },
        extensions: { [TASKS_EXTENSION]: {} },
      },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: Object.entries(ctx.runs.published)
      .filter(([name]) => may(name))
      .map(([name, agent]) => ({
        name,
        description: agent.description,
        inputSchema: { ...AGENT_INPUT_SCHEMA, required: [...AGENT_INPUT_SCHEMA.required] },
        execution: { taskSupport: 'optional' as const },
      })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    guard(async () => {
      const { name, arguments: args = {} } = request.params;
      ctx.runs.agent(name);
      if (!may(name)) throw new GatewayError('forbidden', `this key may not run agent "${name}"`);
      const task = typeof args.task === 'string' ? args.task : '';
      if (!task.trim()) throw new GatewayError('bad_request', `tool "${name}" needs a task`);
      const id = await ctx.runs.start(name, {
        task: taskText(task, typeof args.context === 'string' ? args.context : undefined),
        caller,
      });
      if (wantsTask(request.params)) {
        const now = new Date().toISOString();
        return createTaskResult({ taskId: id, status: 'working', createdAt: now, lastUpdatedAt: now }) as never;
      }
      const progressToken = request.params._meta?.progressToken;
      let progress = 0;
      for await (const item of ctx.runs.feed.follow(id)) {
        if (extra.signal.aborted) break;
        if (item.topic !== 'events') continue;
        const e = item.event;
        if (progressToken !== undefined && (e.type === 'turn_start' || e.type === 'tool_execution'))
          await extra.sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken,
              progress: ++progress,
              message: e.type === 'turn_start' ? `turn ${e.turn}` : `${e.tool} ran`,
            },
          });
        const inputs = await ctx.runs.inputsAfter(id, item);
        if (inputs.length > 0)
          return {
            content: [
              {
                type: 'text' as const,
                text: `task ${id} waits for ${callIds(inputs)}: call ${name} as a task to answer it`,
              },
            ],
            isError: true,
            structuredContent: { runId: id, status: 'input_required' },
          };
        if (e.type === 'done') break;
      }
      return callToolResult(id, await ctx.runs.agents.result(id));
    }),
  );
  const own = async (taskId: string) => guard(() => ctx.runs.own(taskId, caller, may));
  server.setRequestHandler(GetTaskRequestSchema, async (request) => {
    await own(request.params.taskId);
    return detailedTask(await facts(ctx, request.params.taskId)) as never;
  });
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request) => {
    const { taskId } = request.params;
    await own(taskId);
    const result = callToolResult(taskId, await ctx.runs.agents.result(taskId));
    return { ...result, _meta: { 'io.modelcontextprotocol/related-task': { taskId } } };
  });
  server.setRequestHandler(UpdateTaskRequestSchema, async (request) => {
    const { taskId, inputResponses } = request.params;
    await own(taskId);
    await guard(async () => {
      const answers = answersOf(inputResponses, await ctx.runs.inputs(taskId));
      if (answers.length === 0)
        throw new GatewayError(
          'bad_request',
          `task "${taskId}" waits for none of ${Object.keys(inputResponses).join(', ')}`,
        );
      for (const answer of answers) await ctx.runs.answer(taskId, answer);
    });
    return { resultType: 'complete' };
  });
  server.setRequestHandler(CancelTaskRequestSchema, async (request) => {
    const { taskId } = request.params;
    const { running } = await own(taskId);
    if (!running) throw new McpError(ErrorCode.InvalidParams, `task "${taskId}" has already ended`);
    await guard(() => ctx.runs.cancel(taskId));
    await ctx.runs.agents.result(taskId);
    const { inputs: _inputs, ...f } = await facts(ctx, taskId);
    return { ...detailedTask(f), resultType: 'complete' } as never;
  });
  return server;
}

export function registerMcp(app: Hono, ctx: GatewayContext): void {
  app.all('/mcp', async (c) => {
    const auth = ctx.authorize(c);
    if (!auth.ok) return rpcRefusal(c, auth, null);
    if (c.req.method === 'GET' || c.req.method === 'DELETE')
      // Stateless: no session to hold a server-to-client stream or to end.
      return c.json(
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Method not allowed: the gateway keeps no MCP session' },
        },
        405,
      );
    const server = serverFor(ctx, auth);
    const transport = new streamableHttp.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw);
    c.req.raw.signal.addEventListener('abort', () => void server.close(), { once: true });
    return response;
  });
}
