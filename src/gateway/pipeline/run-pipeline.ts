// Runs one request through the plugin phases (docs/architecture.md "The plugin contract") and writes the result.
import type { ServerResponse } from 'node:http';
import type { Pipeline } from './load-pipeline.ts';
import type { GatewayResponse, RequestContext, RequestHead } from '../../plugin-api/contract.ts';
import { writeError, writeJsonResponse, writeStream } from '../stream/response-writer.ts';

export interface PipelineOutcome {
  /** Error code written to the client (a gateway error code, the provider's own, or upstream_stream_error), if any. */
  code: string | null;
}

/**
 * The pipeline's onRequestHead hooks on a request's head, in list order, before its body is read: the first to throw
 * refuses the request (the caller answers it, without a request context).
 */
export async function runRequestHead(pipeline: Pipeline, head: RequestHead): Promise<void> {
  for (const p of pipeline.onRequestHead) await p.hooks.onRequestHead!(head);
}

export async function runPipeline(
  pipeline: Pipeline,
  ctx: RequestContext,
  res: ServerResponse,
): Promise<PipelineOutcome> {
  // Which plugins took part so far: an index into pipeline.stages.
  let stage = 0;
  let response: GatewayResponse | undefined;
  let code: string | null = null;
  try {
    for (const hook of pipeline.onRequest) {
      stage = hook.stage;
      const reply = await hook.plugin.hooks.onRequest!(ctx);
      if (reply) {
        response = reply;
        ctx.source = reply.source ?? 'gateway';
        break;
      }
    }
    if (!response) {
      stage = pipeline.stages.length - 1;
      response = await pipeline.terminal.hooks.handle!(ctx);
      ctx.source = response.source ?? 'upstream';
    }
    const { onResponse, events, onResponseEnd, streamedTextChars } = pipeline.stages[stage];
    // A plugin that sees the response may change its body in place; then the provider's raw text is stale.
    if (response.kind === 'json' && response.raw !== undefined && onResponse.length > 0) {
      response = { ...response, raw: undefined };
    }
    // Likewise chunks in a stream an onResponse hook put in place of the one produced.
    const produced = response.kind === 'stream' ? response.events : undefined;
    for (const p of onResponse) {
      const replaced = await p.hooks.onResponse!(ctx, response);
      if (replaced) {
        response = replaced;
        // An edited answer still came from where the original came from, unless the plugin says otherwise.
        if (replaced.source !== undefined) ctx.source = replaced.source;
      }
    }
    ctx.response = response;
    if (response.kind === 'json') writeJsonResponse(ctx, res, response);
    else
      await writeStream(ctx, res, response, {
        hooks: events.plugins,
        providerText: !events.edit && response.events === produced,
        textChars: streamedTextChars,
      });
    if (ctx.error !== undefined) code = 'upstream_stream_error';
    for (const p of onResponseEnd) {
      try {
        await p.hooks.onResponseEnd!(ctx);
      } catch (err) {
        ctx.log.error('onResponseEnd failed', { plugin: p.name, requestId: ctx.id, error: (err as Error).stack });
      }
    }
  } catch (err) {
    ctx.error = err;
    ctx.source ??= 'gateway';
    if (ctx.clientAborted || res.headersSent) {
      ctx.status ??= 499;
      if (!res.writableEnded) res.end();
    } else {
      code = writeError(ctx, res, err);
    }
  }
  ctx.errorCode = code;
  for (const p of pipeline.stages[stage].onLog) {
    try {
      p.hooks.onLog!(ctx);
    } catch (err) {
      ctx.log.error('onLog failed', { plugin: p.name, requestId: ctx.id, error: (err as Error).stack });
    }
  }
  return { code };
}
