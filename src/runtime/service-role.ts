/**
 * What a process serves (docs/architecture.md "Processes and listeners"). `all`: both listeners and every background
 * loop. `gateway`: the gateway listener, with what serving needs (key polling, config reload, the trace writer and its
 * metric rollups, the spend ledger), and on the admin port only /health, /ready and /metrics. `admin`: the admin
 * listener and the background loops (webhook delivery, retention sweep), no gateway listener.
 */
export type ServiceRole = 'all' | 'gateway' | 'admin';
export const SERVICE_ROLES: readonly ServiceRole[] = ['all', 'gateway', 'admin'];

/** What a role starts: the one place that reads the role. */
export interface RoleWork {
  /**
   * The gateway listener and the writers of what it produces: traces (with their metric rollups) and spend. The admin
   * role only reads those, so its writers never start (a data_dir's spill files are replayed by a process serving the
   * gateway).
   */
  gateway: boolean;
  /** The admin listener's surfaces; `status` is /health, /ready and /metrics only (admin/status-server.ts). */
  adminSurfaces: 'all' | 'status';
  /**
   * The admin's own work: the dashboard's first owner (made, and its password printed, where the dashboard is served),
   * webhook delivery and the retention sweep.
   */
  admin: boolean;
}

export function roleWork(role: ServiceRole): RoleWork {
  return {
    gateway: role !== 'admin',
    adminSurfaces: role === 'gateway' ? 'status' : 'all',
    admin: role !== 'gateway',
  };
}
