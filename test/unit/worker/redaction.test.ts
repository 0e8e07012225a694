/** The redaction rules on their own: text, values, text in pieces, errors with their causes, log lines. */
import { ApplicationFailure, type LogLevel, type LogMetadata, type Logger } from '@temporalio/common';
import { PieceRedactor, REDACTED, SecretSet } from '../../../src/common/secrets';
import { RedactingLogger, redactError } from '../../../src/worker/redaction';

const KEY = 'sk-canary-0123456789abcdef';
const secrets = new SecretSet([KEY, 'short', undefined]);

describe('redaction', () => {
  it('replaces secrets in text and in JSON values, keys included, and leaves clean values as they are', () => {
    expect(secrets.size).toBe(1);
    expect(secrets.redact(`key=${KEY}; again ${KEY}`)).toBe(`key=${REDACTED}; again ${REDACTED}`);
    const clean = { a: [1, 'two', { three: true }] };
    expect(secrets.redactValue(clean)).toBe(clean);
    expect(secrets.redactValue({ list: [`x ${KEY}`], [KEY]: 1 })).toEqual({ list: [`x ${REDACTED}`], [REDACTED]: 1 });
  });

  it('finds a secret split across the pieces of a stream, whatever the cut', () => {
    const text = `The key is ${KEY}, said the model.`;
    for (let cut = 1; cut < text.length; cut += 3) {
      const pieces = new PieceRedactor(secrets);
      const shown = [text.slice(0, cut), text.slice(cut, cut + 5), text.slice(cut + 5)]
        .map((piece) => pieces.push(piece))
        .join('');
      expect(shown + pieces.flush()).toBe(`The key is ${REDACTED}, said the model.`);
    }
  });

  it('scrubs an error, its details and its causes in place, keeping its class and type', () => {
    const cause = new Error(`401 {"error":"bad key ${KEY}"}`);
    const failure = ApplicationFailure.create({
      message: `call failed: ${KEY}`,
      type: 'LlmAuthentication',
      nonRetryable: true,
      details: [{ echoed: KEY }],
      cause,
    });
    expect(redactError(failure, secrets)).toBe(failure);
    expect(failure).toMatchObject({ type: 'LlmAuthentication', nonRetryable: true, details: [{ echoed: REDACTED }] });
    expect([failure.message, cause.message, failure.stack, cause.stack].join('\n')).not.toContain(KEY);
  });

  it('logs lines with the secrets replaced, in the message and in what the metadata prints', () => {
    const lines: [LogLevel, string, LogMetadata | undefined][] = [];
    const sink: Logger = {
      log: (level, message, meta) => void lines.push([level, message, meta]),
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    };
    const logger = new RedactingLogger(sink, secrets);
    const error = Object.assign(new Error('provider refused'), { headers: { 'x-echoed-api-key': KEY } });
    logger.warn(`failed with ${KEY}`, { error, attempt: 2 });
    logger.info('clean line', { attempt: 1 });
    expect(JSON.stringify(lines)).not.toContain(KEY);
    expect(lines[0][1]).toBe(`failed with ${REDACTED}`);
    expect(String(lines[0][2]?.error)).toContain(REDACTED);
    expect(lines[1]).toEqual(['INFO', 'clean line', { attempt: 1 }]);
  });
});
