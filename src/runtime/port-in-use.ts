// A listener that cannot bind because its port is taken: one line that names the port and what chooses it, in place
// of the raw EADDRINUSE stack.

type ListenerName = 'gateway' | 'admin';

/** The address a listener binds. */
export interface ListenAddress {
  port: number;
  host: string;
}

/** Where each listener's port is chosen: its `gateway.yaml` setting and the `svc start` flag that overrides it. */
const CHOSEN_BY: Record<ListenerName, { setting: string; flag: string }> = {
  gateway: { setting: 'server.port', flag: '--port' },
  admin: { setting: 'server.admin_port', flag: '--admin-port' },
};

export class PortInUseError extends Error {
  constructor(listener: ListenerName, { port, host }: ListenAddress) {
    const { setting, flag } = CHOSEN_BY[listener];
    super(
      `the ${listener} port ${port} (on ${host}) is in use by another process; ` +
        `choose another with ${setting} in the configuration or ${flag} N (npm start -- ${flag} N)`,
    );
  }
}

/** Rethrows a bind failure for a taken port as a PortInUseError; any other error as it is. */
export function portInUse(listener: ListenerName, at: ListenAddress): (err: unknown) => never {
  return (err) => {
    if ((err as { code?: unknown }).code === 'EADDRINUSE') throw new PortInUseError(listener, at);
    throw err;
  };
}
