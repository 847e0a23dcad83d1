// The audited changes of automations, shared by `svc automations` and the dashboard: each change is stored with its
// audit row in one transaction. A target URL is a credential (a Slack URL is its own key) and every dashboard role
// reads the audit log, so audit rows keep only the URL's host. The caller checks a new action first
// (checkAutomationSpec, with the network rules its surface applies).
import type { Database } from '../../platform/store/database.ts';
import { writeProjectAudit } from '../../platform/store/repos/audit-log.ts';
import {
  createAutomation,
  deleteAutomation,
  requeueDelivery,
  rotateSigningSecret,
  setAutomationEnabled,
  type Automation,
  type AutomationInput,
  type CreatedAutomation,
} from '../../platform/store/repos/automations.ts';
import { getProject, type Project } from '../../platform/store/repos/projects.ts';

type ProjectRef = Pick<Project, 'id' | 'organizationId'>;

export interface ChangedBy {
  actor: string;
}

/** The URL's host alone, for audit rows; null without a URL. */
export function urlHost(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return '…';
  }
}

/** The new automation; a webhook's `signingSecret` exists only in the returned value. */
export async function addAutomation(
  db: Database,
  project: ProjectRef,
  spec: Omit<AutomationInput, 'projectId'>,
  by: ChangedBy,
): Promise<CreatedAutomation> {
  return db.transaction(async (tx) => {
    const created = await createAutomation(tx, { ...spec, projectId: project.id });
    await writeProjectAudit(tx, project, by.actor, {
      action: 'automation.create',
      resourceType: 'automation',
      resourceId: created.id,
      details: { type: created.type, host: urlHost(created.url), actions: created.actions },
    });
    return created;
  });
}

/** Turns the automation on (its failure streak cleared) or off by an operator; undefined when there is none. */
export async function switchAutomation(
  db: Database,
  id: string,
  enabled: boolean,
  by: ChangedBy,
): Promise<Automation | undefined> {
  return db.transaction(async (tx) => {
    const changed = await setAutomationEnabled(tx, id, enabled);
    if (!changed) return undefined;
    const project = await getProject(tx, changed.projectId);
    await writeProjectAudit(tx, { id: changed.projectId, organizationId: project?.organizationId }, by.actor, {
      action: enabled ? 'automation.enable' : 'automation.disable',
      resourceType: 'automation',
      resourceId: id,
    });
    return changed;
  });
}

/** Deletes the automation with its pending deliveries and its log; false when it was already gone. */
export async function removeAutomation(
  db: Database,
  project: ProjectRef,
  automation: Automation,
  by: ChangedBy,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!(await deleteAutomation(tx, automation.id))) return false;
    await writeProjectAudit(tx, project, by.actor, {
      action: 'automation.delete',
      resourceType: 'automation',
      resourceId: automation.id,
      details: { name: automation.name },
    });
    return true;
  });
}

/** A new signing secret for a webhook (the old one stops signing at once), shown only in the returned value. */
export async function rotateAutomationSecret(
  db: Database,
  project: ProjectRef,
  automation: Automation,
  by: ChangedBy,
): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const secret = await rotateSigningSecret(tx, automation.id);
    await writeProjectAudit(tx, project, by.actor, {
      action: 'automation.rotate_secret',
      resourceType: 'automation',
      resourceId: automation.id,
    });
    return secret;
  });
}

/** Queues the event's delivery again; false when the automation has no such event. */
export async function resendDelivery(
  db: Database,
  project: ProjectRef,
  automation: Automation,
  eventId: string,
  by: ChangedBy,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!(await requeueDelivery(tx, automation.id, eventId))) return false;
    await writeProjectAudit(tx, project, by.actor, {
      action: 'automation.resend',
      resourceType: 'automation',
      resourceId: automation.id,
      details: { eventId },
    });
    return true;
  });
}
