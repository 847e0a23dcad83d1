// A worked custom plugin: copies a tenant id from a request header into a response header (and into the
// trace annotations), and can refuse requests that do not carry it. See README.md beside this file and
// docs/plugins.md.
//
// Outside this repository import from the package entry instead: `import { definePlugin, GatewayError } from 'svc/plugin'`.
import { definePlugin, GatewayError } from '../../src/plugin-api/index.ts';

export interface TenantHeaderConfig {
  /** Request header to read, lower-case (Node lower-cases incoming header names). */
  header: string;
  /** Response header to write; defaults to `header`. */
  response_header?: string;
  /** Refuse requests without the header (400 invalid_request). Default false: they pass untouched. */
  required: boolean;
  /** Longest accepted value; longer values are refused. */
  max_length: number;
}

const HEADER_NAME = { type: 'string', pattern: "^[a-z0-9!#$%&'*+.^_`|~-]+$" };
// Printable ASCII only, so the value is always safe to echo in a response header.
const PRINTABLE = /^[\x20-\x7e]+$/;

export default definePlugin<TenantHeaderConfig>({
  apiVersion: 1,
  name: 'tenant-header',
  // Validated (with defaults applied) before setup; errors are reported at plugins[N].config.<field>.
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['header'],
    properties: {
      header: { ...HEADER_NAME, description: 'request header carrying the tenant id (lower-case)' },
      response_header: { ...HEADER_NAME, description: 'response header to echo it in; defaults to header' },
      required: { type: 'boolean', default: false },
      max_length: { type: 'integer', minimum: 1, maximum: 1024, default: 128 },
    },
  },
  setup(config) {
    // Work that does not depend on the request happens once, here.
    const responseHeader = config.response_header ?? config.header;
    return {
      onRequest(ctx) {
        const raw = ctx.headers[config.header];
        const value = (Array.isArray(raw) ? raw.join(', ') : (raw ?? '')).trim();
        if (value === '') {
          if (config.required) throw new GatewayError('invalid_request', `The '${config.header}' header is required.`);
          return;
        }
        if (value.length > config.max_length || !PRINTABLE.test(value)) {
          throw new GatewayError(
            'invalid_request',
            `The '${config.header}' header must be printable ASCII of at most ${config.max_length} characters.`,
          );
        }
        // Headers added here go out with the response, refusals by later plugins included.
        ctx.responseHeaders[responseHeader] = value;
        // Facts for tracing.
        ctx.annotations['svc.tenant'] = value;
      },
    };
  },
});
