import { drain, enqueueOnce } from '../../../src/policy/queues';

describe('queues', () => {
  it('drops duplicate message ids and malformed messages', () => {
    const owner = { seenMessageIds: [] as string[] };
    const queue: { id: string; text: string }[] = [];
    expect(enqueueOnce(owner, queue, { id: 'm1', text: 'a' })).toBe(true);
    expect(enqueueOnce(owner, queue, { id: 'm1', text: 'a' })).toBe(false);
    expect(enqueueOnce(owner, queue, { id: '', text: 'a' })).toBe(false);
    expect(enqueueOnce(owner, queue, { id: 'm2', text: '  ' })).toBe(false);
    expect(drain(queue)).toEqual([{ id: 'm1', text: 'a' }]);
    expect(queue).toEqual([]);
  });
});
