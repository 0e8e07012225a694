/**
 * Open Responses at `/v1/responses`: `model` names a published agent, `input` is the task (or a
 * conversation the task ends, responses-input.ts). A request with `background: true` starts a
 * durable run and answers at once, `stream: true` streams the Responses event types, neither waits
 * for the answer; `previous_response_id` goes on from an ended run's conversation by reference. A
 * response id is the run's id, so `GET` reads it (and `?stream=true&starting_after=N` streams it
 * again after event N) and `cancel` ends it with its result, from any replica.
 */
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { AgentResult } from '../contracts/agent-run';
import { untilAborted, type GatewayContext } from './gateway-context';
import { GatewayError, HTTP_STATUS } from './run-bridge';
import type { Caller } from './run-start';
import { responsesInput } from './responses-input';
import { finalOutput, responseOf, ResponseEvents, statusOfResult } from './responses-view';

const CODES = { 401: 'invalid_api_key', 403: 'permission_denied', 429: 'rate_limit_exceeded' } as const;

/** An error in the Responses API's own shape. */
function apiError(c: Context, status: 400 | 401 | 403 | 404 | 409 | 429, message: string, param: string | null = null) {
  const type = status === 429 ? 'rate_limit_error' : status === 401 ? 'authentication_error' : 'invalid_request_error';
  const code = (CODES as Record<number, string>)[status] ?? null;
  return c.json({ error: { message, type, param, code } }, status);
}

export function registerResponses(app: Hono, ctx: GatewayContext): void {
  const guarded =
    (handler: (c: Context, caller: Caller, may: (agent: string) => boolean) => Promise<globalThis.Response>) =>
    async (c: Context) => {
      const auth = ctx.authorize(c);
      if (!auth.ok) return apiError(c, auth.status, auth.message);
      try {
        return await handler(c, auth.caller, auth.may);
      } catch (err) {
        if (err instanceof GatewayError) return apiError(c, HTTP_STATUS[err.kind], err.message);
        throw err;
      }
    };

  app.post(
    '/v1/responses',
    guarded(async (c, caller, may) => {
      const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
      if (!body || typeof body !== 'object') throw new GatewayError('bad_request', 'the body must be a JSON object');
      if (typeof body.model !== 'string') return apiError(c, 400, 'model must name a published agent', 'model');
      const name = body.model;
      if (!Object.hasOwn(ctx.runs.published, name)) return apiError(c, 404, `no agent "${name}"`, 'model');
      if (!may(name)) throw new GatewayError('forbidden', `this key may not run agent "${name}"`);
      if (body.instructions !== undefined && body.instructions !== null)
        return apiError(c, 400, `instructions are the published agent's own: leave them out`, 'instructions');
      const input = responsesInput(body.input);
      if ('problem' in input) return apiError(c, 400, input.problem, 'input');
      let previous: string | undefined;
      if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
        previous = String(body.previous_response_id);
        const { running } = await ctx.runs.own(previous, caller, may);
        if (running) throw new GatewayError('conflict', `response "${previous}" is still in progress`);
      }
      if (previous && input.history)
        return apiError(
          c,
          400,
          'previous_response_id carries the conversation: give only the next message as input',
          'input',
        );
      const id = await ctx.runs.start(name, { ...input, caller, ...(previous ? { continueFrom: previous } : {}) });
      const base = {
        id,
        model: name,
        createdAt: Math.floor(Date.now() / 1000),
        background: body.background === true,
        ...(previous ? { previous } : {}),
      };
      if (body.stream === true) return streamResponse(c, ctx, base, -1);
      if (body.background === true) return c.json(responseOf({ ...base, status: 'queued' }));
      const result = await ctx.runs.agents.result(id);
      return c.json(responseOf({ ...base, ...endedFacts(id, result), completedAt: Math.floor(Date.now() / 1000) }));
    }),
  );

  app.get(
    '/v1/responses/:id',
    guarded(async (c, caller, may) => {
      const id = c.req.param('id') ?? '';
      const { running, agent } = await ctx.runs.own(id, caller, may);
      const base = { id, model: agent, ...(await timesOf(ctx, id)) };
      if (c.req.query('stream') === 'true') {
        const after = Number(c.req.query('starting_after') ?? -1);
        return streamResponse(c, ctx, base, Number.isInteger(after) ? after : -1);
      }
      if (running) return c.json(responseOf({ ...base, status: 'in_progress' }));
      return c.json(responseOf({ ...base, ...endedFacts(id, await ctx.runs.agents.result(id)) }));
    }),
  );

  app.post(
    '/v1/responses/:id/cancel',
    guarded(async (c, caller, may) => {
      const id = c.req.param('id') ?? '';
      const { running, agent } = await ctx.runs.own(id, caller, may);
      if (running) await ctx.runs.cancel(id);
      const result = await ctx.runs.agents.result(id);
      const base = { id, model: agent, ...(await timesOf(ctx, id)), background: true };
      return c.json(responseOf({ ...base, ...endedFacts(id, result) }));
    }),
  );
}

/** When the run started and, once it has, when it closed (Unix seconds). */
async function timesOf(ctx: GatewayContext, id: string): Promise<{ createdAt: number; completedAt?: number }> {
  const d = await ctx.runs.agents.client.workflow.getHandle(id).describe();
  const seconds = (t: Date) => Math.floor(t.getTime() / 1000);
  return { createdAt: seconds(d.startTime), ...(d.closeTime ? { completedAt: seconds(d.closeTime) } : {}) };
}

/** What a response says of its run's end: its status, answer and usage. */
const endedFacts = (id: string, result: AgentResult) => ({
  status: statusOfResult(result),
  output: finalOutput(id, result),
  usage: result.usage,
});

/** The run's events from its first, those numbered above `after` sent; ends with the run. */
function streamResponse(
  c: Context,
  ctx: GatewayContext,
  base: ConstructorParameters<typeof ResponseEvents>[0],
  after: number,
) {
  return streamSSE(c, async (out) => {
    const abort = new AbortController();
    out.onAbort(() => abort.abort());
    const events = new ResponseEvents(base);
    const send = async (list: ResponseStreamEvent[]) => {
      for (const e of list)
        if (e.sequence_number > after)
          await out.writeSSE({ event: e.type, data: JSON.stringify(e), id: String(e.sequence_number) });
    };
    await send(events.started());
    for await (const item of untilAborted(ctx.runs.feed.follow(base.id), abort.signal)) {
      const list = events.item(item);
      await send(list);
      if (
        list.some(
          (e) => e.type === 'response.completed' || e.type === 'response.failed' || e.type === 'response.incomplete',
        )
      )
        return;
    }
  });
}
