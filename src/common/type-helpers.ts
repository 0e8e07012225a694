/** `Omit` applied to each member of a union, so a discriminated union stays one. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
