/**
 * Per-describe lifecycle of a test resource: opened once before the block's tests, reset before
 * each test, closed after the block. The returned stand-in reads through to the live resource, so
 * a test file writes `const fx = useAgentFixture();` instead of its own beforeAll/afterAll.
 */
export function useOnce<T extends object>(
  open: () => Promise<T>,
  close: (value: T) => Promise<unknown>,
  reset?: (value: T) => void,
): T {
  let live: T | undefined;
  const current = (): T => {
    if (!live) throw new Error('the resource is used outside the tests of the describe block that opened it');
    return live;
  };
  beforeAll(async () => {
    live = await open();
  });
  afterAll(async () => {
    if (live) await close(live);
    live = undefined;
  });
  if (reset) beforeEach(() => reset(current()));
  return new Proxy({} as T, {
    get: (_, key) => {
      const value = Reflect.get(current(), key, current());
      return typeof value === 'function' ? value.bind(current()) : value;
    },
    set: (_, key, value) => Reflect.set(current(), key, value),
  });
}
