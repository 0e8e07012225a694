/**
 * AG-UI 1.0 at `POST /ag-ui/{agent}`: the protocol's run input starts a run of the agent (thread id
 * = the conversation, run id = the run), reconnects to it (`Last-Event-ID`: the SSE id of the last
 * event the client has), or resumes it after an interrupt (the input's `resume` entries answer the
 * approvals and questions it waits for); then one SSE stream of AG-UI events until the run ends or
 * waits for the caller.
 */
import { contentToText, type BaseEvent, type Message, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import type { Context, Hono } from 'hono';
import { stream } from 'hono/streaming';
import { AgUiTranslator, interruptOf, interruptRef } from './ag-ui-events';
import { conversationStart, type Said } from './conversation';
import { untilAborted, type GatewayContext } from './gateway-context';
import { GatewayError, HTTP_STATUS, type InputAnswer } from './run-bridge';
import type { Caller } from './run-start';
import { positionOf, positionText, type FeedPosition } from './token-source';

/** The run an AG-UI request reads: where its stream starts and what it continues from. */
interface Target {
  workflowId: string;
  at?: FeedPosition;
}

export function registerAgUi(app: Hono, ctx: GatewayContext): void {
  app.post('/ag-ui/:agent', async (c) => {
    const auth = ctx.authorize(c);
    if (!auth.ok) return c.json({ error: auth.message }, auth.status);
    const name = c.req.param('agent');
    try {
      ctx.runs.agent(name);
      if (!auth.may(name)) throw new GatewayError('forbidden', `this key may not run agent "${name}"`);
      const parsed = RunAgentInputSchema.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success)
        throw new GatewayError('bad_request', `not an AG-UI run input: ${issuesText(parsed.error.issues)}`);
      const input = parsed.data as RunAgentInput;
      const target = input.resume?.length
        ? await resumeTarget(ctx, name, input, auth.caller)
        : await runTarget(ctx, name, input, auth.caller, c.req.header('last-event-id'));
      return streamRun(c, ctx, input, target);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      return c.json({ error: err.message }, HTTP_STATUS[err.kind]);
    }
  });
}

const issuesText = (issues: { path: PropertyKey[]; message: string }[]): string =>
  issues.map((i) => `${i.path.map(String).join('.') || 'input'}: ${i.message}`).join('; ');

/** Answers the interrupts the input resumes, as the CLI would; the stream goes on where the first was raised. */
async function resumeTarget(ctx: GatewayContext, name: string, input: RunAgentInput, caller: Caller): Promise<Target> {
  const refs = (input.resume ?? []).map((entry) => ({ entry, ref: interruptRef(entry.interruptId) }));
  const run = refs[0].ref?.run;
  if (!run || refs.some((r) => r.ref?.run !== run))
    throw new GatewayError('bad_request', 'the resume entries must answer interrupts of one run of this gateway');
  const { agent } = await ctx.runs.own(run, caller);
  if (agent !== name) throw new GatewayError('bad_request', `the interrupts belong to agent "${agent}", not "${name}"`);
  const waiting = await ctx.runs.inputs(run);
  for (const { entry, ref } of refs) {
    const input = waiting.find((w) => w.toolCallId === ref!.call);
    if (!input) continue; // decided already (another replica, the CLI): the stream shows how
    const payload = (entry.payload ?? {}) as Record<string, unknown>;
    const cancelled = entry.status === 'cancelled';
    const reason =
      typeof payload.reason === 'string' ? payload.reason : cancelled ? 'cancelled by the user' : undefined;
    const answer: InputAnswer =
      input.kind === 'question'
        ? {
            toolCallId: input.toolCallId,
            answer: cancelled ? '(the user did not answer)' : String(payload.answer ?? ''),
          }
        : {
            toolCallId: input.toolCallId,
            approve: !cancelled && payload.approved === true,
            ...(reason === undefined ? {} : { reason }),
            ...(typeof payload.argsHash === 'string' ? { argsHash: payload.argsHash } : {}),
          };
    await ctx.runs.answer(run, answer);
  }
  const at = refs
    .map((r) => positionOf(r.ref!.at)!)
    .sort((a, b) => a.from - b.from || (a.tokensAfter ?? 0) - (b.tokensAfter ?? 0))[0];
  return { workflowId: run, at };
}

/** The run the input names: reconnected to when it exists, else started from the input's last user message. */
async function runTarget(
  ctx: GatewayContext,
  name: string,
  input: RunAgentInput,
  caller: Caller,
  lastEventId: string | undefined,
): Promise<Target> {
  const workflowId = ctx.runs.runId(name, input.runId);
  const existing = await ctx.runs.own(workflowId, caller).catch((err: unknown) => {
    if (err instanceof GatewayError && err.kind === 'not_found') return undefined;
    throw err;
  });
  if (existing) {
    const at = positionOf(lastEventId);
    return { workflowId, ...(at ? { at } : {}) };
  }
  const previous = previousRun(ctx, name, input.messages);
  // After a run of this agent, its conversation goes on by reference: the messages after its answer start the next.
  const start = conversationStart(
    input.messages.slice(previous ? previous.at + 1 : 0).map((m, i) => saidOf(m, (previous?.at ?? -1) + 1 + i)),
  );
  if ('problem' in start) throw new GatewayError('bad_request', `the run input: ${start.problem}`);
  if (previous && start.history)
    throw new GatewayError('bad_request', `the run input: only user messages may follow the answer of ${previous.run}`);
  await ctx.runs.start(name, {
    ...start,
    caller,
    id: workflowId,
    ...(previous ? { continueFrom: previous.run } : {}),
  });
  return { workflowId };
}

/** One message of a thread as text; what an agent cannot take is a problem naming it. */
function saidOf(m: Message, i: number): Said {
  const at = `messages[${i}]`;
  if (m.role === 'system' || m.role === 'developer')
    throw new GatewayError(
      'bad_request',
      `the run input: ${at} is a ${m.role} message: the agent's instructions are its own`,
    );
  if (m.role === 'assistant' && m.toolCalls?.length)
    throw new GatewayError('bad_request', `the run input: ${at} calls tools: the agent's tools are its own`);
  if (m.role !== 'user' && m.role !== 'assistant')
    throw new GatewayError(
      'bad_request',
      `the run input: ${at} is a ${m.role} message: only user and assistant messages are taken`,
    );
  const text = contentToText((m as { content?: Parameters<typeof contentToText>[0] }).content);
  if (!text.trim()) throw new GatewayError('bad_request', `the run input: ${at} has no text`);
  return { role: m.role, text };
}

/** The run of this agent that wrote the thread's last assistant message (its ids name the run), and where. */
function previousRun(ctx: GatewayContext, name: string, messages: Message[]): { run: string; at: number } | undefined {
  for (let at = messages.length - 1; at >= 0; at--) {
    const m = messages[at];
    if (m.role !== 'assistant') continue;
    const run = m.id.slice(0, Math.max(0, m.id.lastIndexOf('#')));
    if (ctx.runs.agentOf(run) === name) return { run, at };
  }
  return undefined;
}

function streamRun(c: Context, ctx: GatewayContext, input: RunAgentInput, target: Target) {
  const encoder = new EventEncoder();
  c.header('Content-Type', 'text/event-stream');
  c.header('Cache-Control', 'no-cache');
  c.header('X-Accel-Buffering', 'no');
  return stream(c, async (out) => {
    const abort = new AbortController();
    out.onAbort(() => abort.abort());
    const t = new AgUiTranslator(input.threadId, input.runId, target.workflowId);
    const write = async (events: BaseEvent[], at?: FeedPosition) => {
      for (const e of events)
        await out.write(`${at === undefined ? '' : `id: ${positionText(at)}\n`}${encoder.encodeSSE(e)}`);
    };
    await write(t.started());
    for await (const item of untilAborted(ctx.runs.feed.follow(target.workflowId, target.at), abort.signal)) {
      const events = t.item(item);
      const inputs = await ctx.runs.inputsAfter(target.workflowId, item);
      if (inputs.length > 0) {
        await write(events, t.position);
        await write(t.interrupted(inputs.map((i) => interruptOf(target.workflowId, i, t.position!))), t.position);
        return;
      }
      await write(events, t.position);
      if (events.some((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR')) return;
    }
    if (!abort.signal.aborted)
      await write([...t.close(), { type: 'RUN_ERROR', message: 'the run ended without a result' } as BaseEvent]);
  });
}
