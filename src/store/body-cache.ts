/**
 * A worker-side cache of bodies by content hash. A hash names one content forever, so an entry
 * never goes stale; the cache only has to stay within its memory budget (least recently used
 * bodies leave first). Cached bodies are frozen: every reader shares one object.
 */

/** Default budget: the JSON text length of the cached bodies, summed. */
const DEFAULT_BODY_CACHE_BYTES = 64 * 1024 * 1024;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export class BodyCache {
  private readonly bodies = new Map<string, { value: unknown; bytes: number }>();
  private used = 0;

  constructor(readonly maxBytes: number = DEFAULT_BODY_CACHE_BYTES) {}

  has(hash: string): boolean {
    return this.bodies.has(hash);
  }

  get<T>(hash: string): T | undefined {
    const hit = this.bodies.get(hash);
    if (!hit) return undefined;
    this.bodies.delete(hash);
    this.bodies.set(hash, hit);
    return hit.value as T;
  }

  /** Caches a parsed body whose stored text is `bytes` long; returns the (frozen) body. */
  set<T>(hash: string, value: T, bytes: number): T {
    // One body may take an eighth of the budget at most, so a huge one cannot flush the rest.
    if (bytes > this.maxBytes / 8 || this.bodies.has(hash)) return value;
    this.bodies.set(hash, { value: deepFreeze(value), bytes });
    this.used += bytes;
    for (const [oldest, entry] of this.bodies) {
      if (this.used <= this.maxBytes) break;
      this.bodies.delete(oldest);
      this.used -= entry.bytes;
    }
    return value;
  }

  delete(hash: string): void {
    const hit = this.bodies.get(hash);
    if (!hit) return;
    this.bodies.delete(hash);
    this.used -= hit.bytes;
  }
}
