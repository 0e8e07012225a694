import { SetupError } from '../../../src/connection/setup-error';
import { telemetryConfigOf } from '../../../src/telemetry/telemetry-config';

const metrics = (env: NodeJS.ProcessEnv, flags: Parameters<typeof telemetryConfigOf>[1] = {}) =>
  telemetryConfigOf(env, flags).metrics;

const refusal = (env: NodeJS.ProcessEnv, flags: Parameters<typeof telemetryConfigOf>[1] = {}): string => {
  try {
    telemetryConfigOf(env, flags);
  } catch (error) {
    if (error instanceof SetupError) return error.message;
    throw error;
  }
  throw new Error('accepted');
};

describe('the metrics endpoint of telemetryConfigOf', () => {
  it('is off without a port, whatever address is set in the environment', () => {
    expect(metrics({})).toBeUndefined();
    expect(metrics({ DURABLE_AGENTS_METRICS_BIND: '0.0.0.0' })).toBeUndefined();
  });

  it('listens on this machine only unless told', () => {
    expect(metrics({}, { metricsPort: '9464' })).toEqual({ bindAddress: '127.0.0.1:9464' });
    expect(metrics({ DURABLE_AGENTS_METRICS_PORT: '9464' })).toEqual({ bindAddress: '127.0.0.1:9464' });
  });

  it('listens where the environment says, and where --metrics-bind says over it', () => {
    const env = { DURABLE_AGENTS_METRICS_PORT: '9464', DURABLE_AGENTS_METRICS_BIND: '0.0.0.0' };
    expect(metrics(env)).toEqual({ bindAddress: '0.0.0.0:9464' });
    expect(metrics(env, { metricsBind: '10.1.2.3' })).toEqual({ bindAddress: '10.1.2.3:9464' });
  });

  it('writes an IPv6 address in brackets', () => {
    expect(metrics({}, { metricsPort: 9464, metricsBind: '::' })).toEqual({ bindAddress: '[::]:9464' });
  });

  it('refuses an address that is no IP address, naming where it came from', () => {
    expect(refusal({ DURABLE_AGENTS_METRICS_PORT: '9464', DURABLE_AGENTS_METRICS_BIND: 'localhost' })).toBe(
      'DURABLE_AGENTS_METRICS_BIND localhost is not an IP address: give 127.0.0.1 (this machine only, the default) ' +
        'or 0.0.0.0 (every interface).',
    );
  });

  it('refuses --metrics-bind without a port', () => {
    expect(refusal({}, { metricsBind: '0.0.0.0' })).toBe(
      '--metrics-bind needs a port to listen on: give --metrics-port too.',
    );
  });

  it('refuses a port written other than in decimal digits, or out of range', () => {
    for (const port of ['0x10', '1e3', '0', '65536', '94.64'])
      expect(refusal({}, { metricsPort: port })).toBe(
        `--metrics-port ${port} is not a port: give a number from 1 to 65535.`,
      );
  });
});
