/** `Omit` applied to each member of a union, so a discriminated union stays one. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Whether `value` is a plain JSON object: not null, not an array. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `list` is absent, or a list (as given, not yet trusted) whose every item is `ok`. */
export const absentOrAll = <T>(list: T[] | undefined, ok: (item: T, i: number, all: T[]) => boolean): boolean =>
  list === undefined || (Array.isArray(list) && list.every(ok));

/** `fields` without the ones whose value is undefined: spread over defaults, they override none with nothing. */
export const definedFields = <T extends Record<string, unknown>>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
