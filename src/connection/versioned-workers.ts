/**
 * Connections that a versioned worker of this process polls through. A client on such a connection
 * must not ask for eager start: the server hands the new run's first task to the local worker and
 * the run is pinned to that worker's version, whichever version is current.
 */
const versioned = new WeakSet<object>();

/** Records that a versioned worker polls through `connection`. */
export function markVersionedWorkerConnection(connection: object): void {
  versioned.add(connection);
}

/** Whether a versioned worker of this process polls through `connection`. */
export function hasVersionedWorker(connection: object): boolean {
  return versioned.has(connection);
}
