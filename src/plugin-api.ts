// The public surface for plugin authors: `import { definePlugin, GatewayError, stateSlot } from 'svc/plugin'`.
export { definePlugin } from './pipeline/define-plugin.ts';
export { GatewayError } from './errors/gateway-error.ts';
export { stateSlot, type StateSlot } from './pipeline/state.ts';
export type { GatewayErrorCode } from './errors/codes.ts';
export type {
  AttemptRecord,
  ChatChunk,
  GatewayResponse,
  JsonResponse,
  PluginDefinition,
  PluginHooks,
  Principal,
  RequestContext,
  Services,
  StreamResponse,
  Usage,
} from './pipeline/types.ts';
