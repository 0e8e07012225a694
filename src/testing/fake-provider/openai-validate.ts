/**
 * Request checks the OpenAI Chat Completions API makes (and, for reasoning input, the stricter
 * compatible servers). Returns the error message and offending parameter of the first violation.
 */
import { isPlainObject as isObj } from '../../common/type-helpers';

type Obj = Record<string, unknown>;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];

export interface OpenAIValidationError {
  message: string;
  param: string | null;
}

const fail = (message: string, param: string | null = null): OpenAIValidationError => ({ message, param });

/** The error for tool calls that no tool message answered, at `param`. */
const unanswered = (pending: string[], param: string): OpenAIValidationError =>
  fail(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each ` +
      `'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
    param,
  );

export interface OpenAIValidationContext {
  /**
   * True for tool calls this endpoint issued together with reasoning: like DeepSeek's thinking
   * mode, the assistant message carrying them must send that reasoning back.
   */
  needsReasoningBack: (toolCallId: string) => boolean;
  /** The thought signature this endpoint issued with a tool call (Gemini style), if any. */
  thoughtSignatureOf: (toolCallId: string) => string | undefined;
}

export function validateOpenAIRequest(body: Obj, ctx: OpenAIValidationContext): OpenAIValidationError | undefined {
  if (typeof body.model !== 'string' || body.model === '') return fail('you must provide a model parameter', 'model');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return fail("Invalid 'messages': empty array. Expected an array with minimum length 1.", 'messages');
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined) {
    return fail("Invalid request: 'max_tokens' and 'max_completion_tokens' cannot both be set.", 'max_tokens');
  }
  if (body.stream_options !== undefined && body.stream !== true)
    return fail("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  if (/^(o\d|gpt-5)/.test(body.model)) {
    for (const knob of ['temperature', 'top_p'] as const) {
      if (body[knob] !== undefined && body[knob] !== 1) {
        return fail(
          `Unsupported value: '${knob}' does not support ${String(body[knob])} with this model. Only the ` +
            `default (1) value is supported.`,
          knob,
        );
      }
    }
  }
  const toolError = validateTools(body.tools, body.tool_choice);
  if (toolError) return toolError;

  const messages = body.messages as unknown[];
  let pending: string[] = [];
  let answerable: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const where = `messages[${i}]`;
    if (!isObj(m) || !ROLES.includes(String(m.role)))
      return fail(`Invalid value for '${where}.role'.`, `${where}.role`);
    if (m.role !== 'tool' && pending.length) return unanswered(pending, `${where}.role`);
    if (m.role !== 'assistant' && ('reasoning_content' in m || 'reasoning' in m))
      return fail(`Unrecognized field in '${where}': reasoning belongs to assistant messages.`, where);
    if (m.role === 'assistant' && m.reasoning_content !== undefined && typeof m.reasoning_content !== 'string') {
      return fail(`Invalid type for '${where}.reasoning_content': expected a string.`, `${where}.reasoning_content`);
    }
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || !answerable.includes(m.tool_call_id)) {
        return fail(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `${where}.role`,
        );
      }
      answerable = answerable.filter((id) => id !== m.tool_call_id);
      pending = pending.filter((id) => id !== m.tool_call_id);
      const contentError = textContent(m.content, where);
      if (contentError) return contentError;
      continue;
    }
    answerable = [];
    if (m.role === 'assistant') {
      const calls = m.tool_calls;
      if (calls !== undefined) {
        if (!Array.isArray(calls) || calls.length === 0)
          return fail(
            `Invalid '${where}.tool_calls': empty array. Expected an array with minimum length 1.`,
            `${where}.tool_calls`,
          );
        for (let j = 0; j < calls.length; j++) {
          const c = calls[j];
          const at = `${where}.tool_calls[${j}]`;
          if (!isObj(c) || typeof c.id !== 'string' || c.id === '')
            return fail(`Missing required parameter: '${at}.id'.`, `${at}.id`);
          if (c.id.length > 40)
            return fail(
              `Invalid '${at}.id': string too long. Expected a string with maximum length 40, but got a ` +
                `string with length ${c.id.length} instead.`,
              `${at}.id`,
            );
          const fn = c.function;
          if (c.type !== 'function' || !isObj(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
            return fail(
              `Invalid '${at}': expected {type:'function', function:{name, arguments}} with string arguments.`,
              at,
            );
          }
          const signature = ctx.thoughtSignatureOf(c.id);
          const given =
            isObj(c.extra_content) && isObj(c.extra_content.google)
              ? c.extra_content.google.thought_signature
              : undefined;
          if (signature !== undefined && given !== signature) {
            return fail(
              `Function call is missing a thought_signature in functionCall parts. Function call ` +
                `\`${String(fn.name)}\`, position ${i}.`,
              `${at}.extra_content`,
            );
          }
        }
        pending = calls.map((c) => String((c as Obj).id));
        answerable = [...pending];
        if (pending.some(ctx.needsReasoningBack) && typeof m.reasoning_content !== 'string') {
          return fail(
            `Missing \`reasoning_content\` field in the assistant message at message index ${i}`,
            `${where}.reasoning_content`,
          );
        }
      }
      if ((m.content === null || m.content === undefined) && calls === undefined) {
        return fail(`Invalid value for '${where}.content': expected a string, got null.`, `${where}.content`);
      }
      if (m.content !== null && m.content !== undefined) {
        const contentError = textContent(m.content, where);
        if (contentError) return contentError;
      }
      continue;
    }
    if (m.role === 'user') {
      if (typeof m.content === 'string') continue;
      if (!Array.isArray(m.content))
        return fail(
          `Invalid type for '${where}.content': expected one of a string or array of objects.`,
          `${where}.content`,
        );
      for (const part of m.content) {
        if (!isObj(part) || (part.type !== 'text' && part.type !== 'image_url'))
          return fail(`Invalid content part type in '${where}.content'.`, `${where}.content`);
      }
      continue;
    }
    const contentError = textContent(m.content, where);
    if (contentError) return contentError;
  }
  if (pending.length) return unanswered(pending, 'messages');
  const format = body.response_format;
  if (isObj(format) && format.type === 'json_object' && !JSON.stringify(messages).toLowerCase().includes('json')) {
    return fail(
      "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
      'messages',
    );
  }
  return undefined;
}

function textContent(content: unknown, where: string): OpenAIValidationError | undefined {
  if (typeof content === 'string') return undefined;
  if (!Array.isArray(content))
    return fail(
      `Invalid type for '${where}.content': expected one of a string or array of objects.`,
      `${where}.content`,
    );
  for (const part of content) {
    if (!isObj(part) || part.type !== 'text' || typeof part.text !== 'string')
      return fail(`Invalid content part in '${where}.content': only text parts are allowed here.`, `${where}.content`);
  }
  return undefined;
}

function validateTools(tools: unknown, choice: unknown): OpenAIValidationError | undefined {
  const names: string[] = [];
  if (tools !== undefined) {
    if (!Array.isArray(tools) || tools.length === 0)
      return fail("Invalid 'tools': empty array. Expected an array with minimum length 1.", 'tools');
    for (let i = 0; i < tools.length; i++) {
      const t = tools[i];
      const fn = isObj(t) ? t.function : undefined;
      if (!isObj(t) || t.type !== 'function' || !isObj(fn) || typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) {
        return fail(
          `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that ` +
            `matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${i}].function.name`,
        );
      }
      names.push(fn.name);
    }
  }
  if (choice !== undefined) {
    if (names.length === 0)
      return fail(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        'tool_choice',
      );
    if (typeof choice === 'string') {
      if (!['auto', 'none', 'required'].includes(choice))
        return fail("Invalid value for 'tool_choice'.", 'tool_choice');
    } else if (!isObj(choice) || !isObj(choice.function) || !names.includes(String(choice.function.name))) {
      return fail("Invalid value for 'tool_choice': the named function is not among 'tools'.", 'tool_choice');
    }
  }
  return undefined;
}
