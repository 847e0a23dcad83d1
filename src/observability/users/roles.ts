// What the organization roles allow: each role may do what the ones before it may (docs/dashboard.md).
import { ROLES, type Role } from '../../platform/store/repos/users.ts';

export const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

/** True when `role` is `min` or above it. */
export const roleAtLeast = (role: Role, min: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(min);
