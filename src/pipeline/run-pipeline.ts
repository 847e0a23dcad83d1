// Runs one request through the plugin phases (ARCHITECTURE.md section 2) and writes the result.
import type { ServerResponse } from 'node:http';
import type { LoadedPlugin, Pipeline } from './load-pipeline.ts';
import type { GatewayResponse, RequestContext } from './types.ts';
import { writeError, writeJsonResponse, writeStream } from '../server/response-writer.ts';

export interface PipelineOutcome {
  /** Error code written to the client (spec code, provider code, or upstream_stream_error), if any. */
  code: string | null;
}

export async function runPipeline(
  pipeline: Pipeline,
  ctx: RequestContext,
  res: ServerResponse,
): Promise<PipelineOutcome> {
  let reached = -1;
  let handled = false;
  let response: GatewayResponse | undefined;
  let code: string | null = null;
  try {
    for (let i = 0; i < pipeline.request.length; i++) {
      reached = i;
      const hook = pipeline.request[i].hooks.onRequest;
      if (!hook) continue;
      const reply = await hook(ctx);
      if (reply) {
        response = reply;
        break;
      }
    }
    if (!response) {
      reached = pipeline.request.length;
      handled = true;
      response = await pipeline.terminal.hooks.handle!(ctx);
    }
    const responders = participants(pipeline, reached, handled);
    // A plugin that sees the response may change its body in place; then the provider's raw text is stale.
    if (response.kind === 'json' && response.raw !== undefined && responders.some((p) => p.hooks.onResponse)) {
      response = { ...response, raw: undefined };
    }
    for (const p of responders) {
      if (!p.hooks.onResponse) continue;
      const replaced = await p.hooks.onResponse(ctx, response);
      if (replaced) response = replaced;
    }
    ctx.response = response;
    if (response.kind === 'json') writeJsonResponse(ctx, res, response);
    else
      await writeStream(
        ctx,
        res,
        response,
        responders.filter((p) => p.hooks.onEvent),
      );
    if (ctx.error !== undefined) code = 'upstream_stream_error';
    for (const p of responders) {
      if (!p.hooks.onResponseEnd) continue;
      try {
        await p.hooks.onResponseEnd(ctx);
      } catch (err) {
        ctx.log.error('onResponseEnd failed', { plugin: p.name, requestId: ctx.id, error: (err as Error).stack });
      }
    }
  } catch (err) {
    ctx.error = err;
    if (ctx.clientAborted || res.headersSent) {
      ctx.status ??= 499;
      if (!res.writableEnded) res.end();
    } else {
      code = writeError(ctx, res, err, ctx.id, ctx.log);
    }
  }
  ctx.errorCode = code;
  for (const p of participants(pipeline, reached, handled)) {
    if (!p.hooks.onLog) continue;
    try {
      p.hooks.onLog(ctx);
    } catch (err) {
      ctx.log.error('onLog failed', { plugin: p.name, requestId: ctx.id, error: (err as Error).stack });
    }
  }
  return { code };
}

/** Plugins that took part, in reverse list order: request plugins reached, the terminal if it ran, and every response-phase plugin. */
function participants(pipeline: Pipeline, reached: number, handled: boolean): LoadedPlugin[] {
  const out: LoadedPlugin[] = [...pipeline.after].reverse();
  if (handled) out.push(pipeline.terminal);
  for (let i = Math.min(reached, pipeline.request.length - 1); i >= 0; i--) out.push(pipeline.request[i]);
  return out;
}
