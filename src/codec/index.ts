export {
  CODEC_TOKEN_ENV,
  DEFAULT_UI_ORIGINS,
  MIN_TOKEN_LENGTH,
  isLoopbackHost,
  localUiOrigins,
  normalizeOrigin,
} from './access';
export { ReferenceCodec, type ReferenceCodecOptions } from './codec';
export { REDACTED, Redactor } from './redact';
export { REFERENCE_FIELDS, bodyKeyOf, expandReferences, findReferences } from './references';
export {
  DEFAULT_CODEC_PORT,
  DEFAULT_MAX_BODY_BYTES,
  startCodecServer,
  type CodecServerOptions,
  type CodecSource,
  type RunningCodecServer,
} from './server';
