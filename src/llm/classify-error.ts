/**
 * The one place provider failures become typed Temporal failures. Everything an adapter throws
 * goes through `classifyError`, so workflows see a small closed set of failure types with the
 * right retryability and the provider's requested retry delay.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ApplicationFailure } from '@temporalio/common';
import { LLM_FAILURE, type LlmFailureType } from '../contracts/failure-types';
import { llmFailure, type LlmFailureDetails } from './failures';

type SdkApiError = InstanceType<typeof Anthropic.APIError> | InstanceType<typeof OpenAI.APIError>;

/** Where the failed call went; only used to make the message self-explanatory. */
export interface ErrorContext {
  provider?: string;
  model?: string;
  /** The call's own deadline fired: whatever the SDK threw, this is a timeout. */
  timedOut?: boolean;
  /** No byte arrived for the idle timeout (a hung provider): a timeout too. */
  idleTimedOut?: boolean;
  idleTimeoutMs?: number;
  /** The caller's signal aborted: whatever the SDK threw (a stream may just end), this is an abort. */
  callerAborted?: boolean;
  timeoutMs?: number;
}

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const CONTEXT_TOO_LONG = new RegExp(
  [
    'prompt is too long',
    'context[ _]length',
    'maximum context',
    'context window',
    'too many (input )?tokens',
    'input is too long',
    'reduce the length',
  ].join('|'),
  'i',
);
const QUOTA = /insufficient_quota|credit balance|billing|exceeded your current quota/i;
const CONTENT_FILTERED = /content[ _](management )?policy|content[ _]filter|safety system|flagged as/i;

/** Anthropic body error types, used when a stream reports an error after the HTTP status was 200. */
const BODY_TYPES: Record<string, LlmFailureType> = {
  invalid_request_error: LLM_FAILURE.badRequest,
  authentication_error: LLM_FAILURE.authentication,
  permission_error: LLM_FAILURE.authentication,
  not_found_error: LLM_FAILURE.badRequest,
  request_too_large: LLM_FAILURE.contextTooLong,
  rate_limit_error: LLM_FAILURE.rateLimited,
  api_error: LLM_FAILURE.serverError,
  server_error: LLM_FAILURE.serverError,
  overloaded_error: LLM_FAILURE.overloaded,
  timeout_error: LLM_FAILURE.timeout,
};

function typeForStatus(status: number): LlmFailureType {
  if (status === 401 || status === 403) return LLM_FAILURE.authentication;
  if (status === 408) return LLM_FAILURE.timeout;
  if (status === 409) return LLM_FAILURE.conflict;
  if (status === 413) return LLM_FAILURE.contextTooLong;
  if (status === 429) return LLM_FAILURE.rateLimited;
  if (status === 503 || status === 529) return LLM_FAILURE.overloaded;
  if (status >= 500) return LLM_FAILURE.serverError;
  return LLM_FAILURE.badRequest;
}

/**
 * Maps any error from a provider call to an `ApplicationFailure` whose `type` is one of
 * `LLM_FAILURE`, with `nonRetryable` set for failures a retry cannot fix and `nextRetryDelay`
 * taken from `retry-after-ms` / `retry-after` when the provider sent them.
 */
export function classifyError(err: unknown, context: ErrorContext = {}): ApplicationFailure {
  const where = context.provider ? `${context.provider}${context.model ? `/${context.model}` : ''}: ` : '';
  const cause = err instanceof Error ? err : undefined;
  const fail = (type: LlmFailureType, text: string): ApplicationFailure =>
    llmFailure(type, `${where}${text}`, { cause });

  if (context.idleTimedOut) {
    const seconds = Number(((context.idleTimeoutMs ?? 0) / 1000).toFixed(1));
    return fail(
      LLM_FAILURE.timeout,
      `no data from the provider for ${seconds} s (idle timeout; a model that thinks silently for longer ` +
        'needs a larger "idleTimeoutMs" in its config-file entry)',
    );
  }
  if (context.timedOut) return fail(LLM_FAILURE.timeout, `no complete response within ${context.timeoutMs ?? '?'} ms`);
  if (context.callerAborted || isAbort(err)) return fail(LLM_FAILURE.aborted, 'call aborted by its caller');
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof Anthropic.APIConnectionTimeoutError || err instanceof OpenAI.APIConnectionTimeoutError) {
    return fail(LLM_FAILURE.timeout, 'request timed out');
  }
  if (isSdkApiError(err) && err.status === undefined && !err.headers) {
    // APIConnectionError: the request never got a response.
    const timedOut = causeCodes(err).some((c) => TIMEOUT_CODES.has(c));
    return fail(timedOut ? LLM_FAILURE.timeout : LLM_FAILURE.connection, describeCause(err));
  }
  if (isSdkApiError(err)) return classifyApiError(err, where);

  const codes = causeCodes(err);
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return fail(LLM_FAILURE.timeout, describeCause(err));
  if (
    codes.some((c) => CONNECTION_CODES.has(c)) ||
    (err instanceof TypeError && /terminated|fetch failed|socket/i.test(err.message))
  ) {
    return fail(LLM_FAILURE.connection, `connection failed: ${describeCause(err)}`);
  }
  return fail(LLM_FAILURE.unknown, cause ? `${cause.name}: ${cause.message}` : String(err));
}

function classifyApiError(err: SdkApiError, where: string): ApplicationFailure {
  const status = err.status;
  const { providerType, code, message } = bodyFacts(err);
  let type: LlmFailureType =
    status !== undefined
      ? typeForStatus(status)
      : ((providerType ? BODY_TYPES[providerType] : undefined) ?? LLM_FAILURE.serverError);
  if (
    (type === LLM_FAILURE.rateLimited || type === LLM_FAILURE.badRequest || type === LLM_FAILURE.authentication) &&
    (code === 'insufficient_quota' || QUOTA.test(message))
  ) {
    type = LLM_FAILURE.quotaExceeded;
  } else if (type === LLM_FAILURE.badRequest || type === LLM_FAILURE.contextTooLong) {
    if (code === 'context_length_exceeded' || CONTEXT_TOO_LONG.test(message)) type = LLM_FAILURE.contextTooLong;
    else if (code === 'content_filter' || code === 'content_policy_violation' || CONTENT_FILTERED.test(message)) {
      type = LLM_FAILURE.contentFiltered;
    }
  }
  const retryAfterMs = retryAfterFromHeaders(err.headers);
  const details: LlmFailureDetails = {};
  if (status !== undefined) details.status = status;
  if (providerType) details.providerErrorType = providerType;
  if (err.requestID) details.requestId = err.requestID;
  if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
  const label = [status, providerType].filter((x) => x !== undefined && x !== null).join(' ');
  return llmFailure(type, `${where}${label ? `${label}: ` : ''}${message}`, { details, retryAfterMs, cause: err });
}

function bodyFacts(err: SdkApiError): { providerType?: string; code?: string; message: string } {
  const body = (err.error ?? {}) as Record<string, unknown>;
  // Anthropic keeps the whole body ({type:'error', error:{type,message}}); OpenAI keeps body.error.
  const inner = (typeof body.error === 'object' && body.error !== null ? body.error : body) as Record<string, unknown>;
  const providerType = typeof inner.type === 'string' ? inner.type : undefined;
  const code = typeof inner.code === 'string' ? inner.code : undefined;
  const message = typeof inner.message === 'string' ? inner.message : err.message;
  return { providerType, code, message };
}

/** `retry-after-ms` (milliseconds) wins over `retry-after` (seconds or an HTTP date). */
function retryAfterFromHeaders(headers: Headers | undefined | null): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const isSdkApiError = (err: unknown): err is SdkApiError =>
  err instanceof Anthropic.APIError || err instanceof OpenAI.APIError;

function isAbort(err: unknown): boolean {
  if (err instanceof Anthropic.APIUserAbortError || err instanceof OpenAI.APIUserAbortError) return true;
  return err instanceof Error && err.name === 'AbortError';
}

/** The error and its causes, six at most. */
function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = err; current && chain.length < 6; current = (current as { cause?: unknown }).cause)
    chain.push(current);
  return chain;
}

const causeCodes = (err: unknown): string[] =>
  causeChain(err).flatMap((c) => {
    const code = (c as { code?: unknown }).code;
    return typeof code === 'string' ? [code] : [];
  });

function describeCause(err: unknown): string {
  const parts = causeChain(err).flatMap((c) => (c instanceof Error ? [c.message] : []));
  return [...new Set(parts)].join(': ') || String(err);
}
