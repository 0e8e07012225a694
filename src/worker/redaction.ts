/**
 * Secrets never leave the worker: every activity's result and failure (message, stack, details,
 * causes) and every log line pass through the worker's {@link SecretSet} before they reach the
 * server or the log. The interceptor runs for every activity the worker registers, hooks and
 * user activities included; the content store redacts its own writes (`activities/redacting-store.ts`).
 */
import { inspect } from 'node:util';
import { ApplicationFailure, type LogLevel, type LogMetadata, type Logger } from '@temporalio/common';
import { LevelLogger } from './level-logger';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { SecretSet } from '../common/secrets';

/** Scrubs an error and its causes in place (so its class, and Temporal's reading of it, stay as they were). */
export function redactError(err: unknown, secrets: SecretSet): unknown {
  if (!(err instanceof Error)) return secrets.redactValue(err);
  const seen = new Set<Error>();
  for (let current: unknown = err; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    current.message = secrets.redact(current.message);
    if (current.stack) current.stack = secrets.redact(current.stack);
    if (current instanceof ApplicationFailure && current.details)
      (current as { details: unknown[] }).details = secrets.redactValue(current.details);
  }
  return err;
}

/** The activity interceptor that redacts results and thrown failures. */
export function redactionInterceptor(secrets: SecretSet): ActivityInterceptorsFactory {
  return () => ({
    inbound: {
      async execute(input, next) {
        try {
          return secrets.redactValue(await next(input));
        } catch (err) {
          throw redactError(err, secrets);
        }
      },
    },
  });
}

/**
 * A logger that redacts what it passes on: the message, and every metadata value whose printed
 * form shows a secret (an error's own properties such as a provider's response body, included).
 */
export class RedactingLogger extends LevelLogger {
  constructor(
    private readonly inner: Logger,
    private readonly secrets: SecretSet,
  ) {
    super();
  }

  private clean(value: unknown): unknown {
    if (typeof value === 'string') return this.secrets.redact(value);
    if (typeof value !== 'object' || value === null) return value;
    const shown = inspect(value, { depth: 8, breakLength: Infinity });
    return this.secrets.list().some((secret) => shown.includes(secret)) ? this.secrets.redact(shown) : value;
  }

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (this.secrets.size === 0) return void this.inner.log(level, message, meta);
    const clean = meta && Object.fromEntries(Reflect.ownKeys(meta).map((key) => [key, this.clean(meta[key])]));
    this.inner.log(level, this.secrets.redact(message), clean);
  }
}
