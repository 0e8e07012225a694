import { TRACE_HEADER as OPEN_TELEMETRY_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { TRACE_HEADER } from '../../../src/contracts/telemetry';

describe('the trace header', () => {
  it('is the one Temporal’s OpenTelemetry interceptors carry a trace context in', () => {
    expect(TRACE_HEADER).toBe(OPEN_TELEMETRY_HEADER);
  });
});
