/** Generic helpers with no dependencies, safe in workflow code. */
export * from './canonical-json';
export * from './decimal';
export * from './duration';
export * from './error-text';
export * from './hash';
export * from './type-helpers';
export * from './secrets';
