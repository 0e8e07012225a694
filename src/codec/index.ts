export { CODEC_TOKEN_ENV, DEFAULT_UI_ORIGINS, isLoopbackHost, localUiOrigins, normalizeOrigin } from './access';
export { REDACTED } from '../common/secrets';
export {
  bindProblem,
  DEFAULT_CODEC_PORT,
  DEFAULT_MAX_BODY_BYTES,
  startCodecServer,
  type CodecSource,
  type RunningCodecServer,
} from './server';
