// The JSON text of a trace item, made once and kept while the item lives: the trace writer's journal line and its
// part of the batch statement's parameters are the same text (store/repos/trace-batch.ts reads it).
import { storableJson, type TraceBatchJson } from '../../platform/store/repos/trace-batch.ts';
import type { TraceItem } from './trace-item.ts';

interface ItemText {
  trace: string;
  /** A JSON array. */
  observations: string;
}

const made = new WeakMap<TraceItem, ItemText>();

function textOf(item: TraceItem): ItemText {
  let text = made.get(item);
  if (text === undefined) {
    text = { trace: storableJson(item.trace), observations: storableJson(item.observations) };
    made.set(item, text);
  }
  return text;
}

/** The item as JSON text (as JSON.stringify writes it, made storable): replay parses it back into the item. */
export function journalLine(item: TraceItem): string {
  const text = textOf(item);
  return `{"trace":${text.trace},"observations":${text.observations}}`;
}

/** The rows of a batch as the trace batch statement reads them. */
export function batchJson(items: readonly TraceItem[]): TraceBatchJson {
  const traces: string[] = [];
  const observations: string[] = [];
  for (const item of items) {
    const text = textOf(item);
    traces.push(text.trace);
    if (text.observations !== '[]') observations.push(text.observations.slice(1, -1));
  }
  return { traces: `[${traces.join(',')}]`, observations: `[${observations.join(',')}]` };
}
