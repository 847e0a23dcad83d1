// The provider's own JSON text of a stream chunk, kept beside the parsed chunk: a stream no plugin edits is written
// to the client as the provider sent it, without serialising each chunk again (docs/decisions.md "Stream
// pass-through"). Keyed by the chunk object itself, so a chunk rebuilt as a new object has no text and is serialised.
import type { ChatChunk } from '../../../platform/openai/wire-types.ts';

const texts = new WeakMap<ChatChunk, string>();

/** Records `text` as the exact JSON of `chunk`. Whoever changes such a chunk later makes a new object instead. */
export function keepWireText(chunk: ChatChunk, text: string): void {
  texts.set(chunk, text);
}

/** The provider's JSON text of `chunk`, when the transport kept it. */
export function wireTextOf(chunk: ChatChunk): string | undefined {
  return texts.get(chunk);
}
