/** The PEV workflow's pure parts: answer schemas and parsing, decisions, prompts, fallbacks, dedupe. */
export * from './answer-schemas';
export * from './decisions';
export * from './extract-json';
export * from './fallbacks';
export * from './parse-answer';
export * from './pev-options';
export * from './prompt-template';
export * from './roles';
export * from './tool-dedupe';
