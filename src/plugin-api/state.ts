// Typed per-request state slots: each plugin declares its own slot and only it reads or writes it.

export interface StateSlot<T> {
  readonly key: symbol;
  /** Phantom field carrying the slot's value type. */
  readonly type?: T;
}

export function stateSlot<T>(name: string): StateSlot<T> {
  return { key: Symbol(name) };
}

export class StateStore {
  #values = new Map<symbol, unknown>();
  get<T>(slot: StateSlot<T>): T | undefined {
    return this.#values.get(slot.key) as T | undefined;
  }
  set<T>(slot: StateSlot<T>, value: T): void {
    this.#values.set(slot.key, value);
  }
}
