// `services.processValues` across gateway threads: the main thread holds every named store (memory-values.ts), and a
// thread's get and set are messages to it, so an answer one thread cached is a hit on every other.
import type { SharedValues } from '../platform/store/counters/counters.ts';
import type { ProcessValues } from '../platform/store/memory-values.ts';
import type { FromGatewayThread, ToGatewayThread } from './gateway-thread-messages.ts';

type ValueRequest = Extract<FromGatewayThread, { type: 'value-get' | 'value-set' }>;
type ValueAnswer = Extract<ToGatewayThread, { type: 'value' }>;

/** The thread's side: each call asks the main thread. */
export class ProcessValuesClient {
  readonly #post: (m: FromGatewayThread) => void;
  #nextId = 1;
  readonly #asked = new Map<number, { resolve: (v: Buffer | null) => void; reject: (e: Error) => void }>();

  constructor(post: (m: FromGatewayThread) => void) {
    this.#post = post;
  }

  readonly values: ProcessValues = (name, maxBytes): SharedValues => ({
    get: (key) => this.#ask({ type: 'value-get', id: 0, name, maxBytes, key }),
    set: async (key, value, ttlMs) =>
      void (await this.#ask({ type: 'value-set', id: 0, name, maxBytes, key, value, ttlMs })),
  });

  answered(m: ValueAnswer): void {
    const asked = this.#asked.get(m.id);
    this.#asked.delete(m.id);
    if (m.error !== undefined) asked?.reject(new Error(m.error));
    else asked?.resolve(m.value === null ? null : Buffer.from(m.value.buffer, m.value.byteOffset, m.value.byteLength));
  }

  #ask(request: ValueRequest): Promise<Buffer | null> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#asked.set(id, { resolve, reject });
      this.#post({ ...request, id });
    });
  }
}

/** The main thread's side: answers a thread's get or set from the process's own stores. */
export function serveValue(values: ProcessValues, reply: (m: ValueAnswer) => void, m: ValueRequest): void {
  const store = values(m.name, m.maxBytes);
  const done =
    m.type === 'value-get' ? store.get(m.key) : store.set(m.key, Buffer.from(m.value), m.ttlMs).then(() => null);
  done.then(
    (value) => reply({ type: 'value', id: m.id, value }),
    (err: Error) => reply({ type: 'value', id: m.id, value: null, error: err.message }),
  );
}
