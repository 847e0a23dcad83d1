// The graceful drain on stop. The gateway listener keeps accepting until the drain ends: /ready answers 503 draining
// and new requests a coded 503 with connection: close (gateway-server.ts), so clients and load balancers learn to go
// elsewhere, while the requests and streams in flight finish, up to the drain deadline.
import type { Server } from 'node:http';

export class RequestDrain {
  #draining = false;
  #inFlight = 0;
  #onIdle: (() => void) | undefined;

  get draining(): boolean {
    return this.#draining;
  }

  /** Requests in flight on the gateway listener, whatever configuration they started on. */
  get inFlight(): number {
    return this.#inFlight;
  }

  requestStarted(): void {
    this.#inFlight++;
  }

  requestFinished(): void {
    this.#inFlight--;
    if (this.#inFlight === 0) this.#onIdle?.();
  }

  /** Starts draining; false when a drain already started. */
  begin(): boolean {
    if (this.#draining) return false;
    this.#draining = true;
    return true;
  }

  /**
   * Drains the gateway listener (none in role admin): its idle connections close now, the requests in flight get up
   * to `deadlineMs` to finish, then it closes with every connection left.
   */
  async closeGateway(gateway: Server | undefined, deadlineMs: number): Promise<void> {
    gateway?.closeIdleConnections();
    if (this.#inFlight > 0) {
      await new Promise<void>((done) => {
        const timer = setTimeout(done, deadlineMs);
        this.#onIdle = () => {
          clearTimeout(timer);
          done();
        };
      });
    }
    const closed = new Promise<void>((done) => (gateway ? gateway.close(() => done()) : done()));
    gateway?.closeAllConnections();
    await closed;
  }
}
