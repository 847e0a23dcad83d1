// Project settings in a real browser (Debian chromium through playwright-core): an owner creates a project API key,
// its secret shown once with a copy button and the warning that it will not be shown again (a reload no longer shows
// it); the pair authenticates GET /api/public/projects with Basic auth, and the list shows its last use; a member may
// neither create nor revoke; a revocation asks first (dismissed: the key stays), then the key gets 401. Both changes
// are in the audit log as the owner. The members list shows the organization's users and roles. Screenshots go to
// test-artifacts/screenshots/.
import type { Page } from 'playwright-core';
import t from 'tap';
import { listUsers } from '../../src/platform/store/repos/users.ts';
import { addUser } from '../../src/observability/users/add-user.ts';
import { ensureDashboardBuild, screenshot, signedInPage } from '../helpers/browser.ts';
import { signIn } from '../helpers/dashboard.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

t.test('project API keys and members in project settings', async (t) => {
  await ensureDashboardBuild();
  const s = await startTestService(t, baseConfig());
  const db = s.service.db;
  const password = 'correct horse battery staple';
  for (const role of ['owner', 'member'] as const)
    await addUser(
      db,
      { email: `${role}@example.test`, name: `The ${role}`, role, password },
      { actor: 'test', organizationId: 'default' },
    );

  const { page, pageErrors } = await signedInPage(t, s.adminUrl, 'owner@example.test', password);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.adminUrl });

  const projects = (pair: { publicKey: string; secretKey: string }) =>
    fetch(`${s.adminUrl}/api/public/projects`, { headers: { authorization: basicAuth(pair) } });
  const keyRow = (p: Page, publicKey: string) => p.locator(`tr[data-public-key="${publicKey}"]`);
  let pair = { publicKey: '', secretKey: '' };

  await t.test('the page from the navigation: the first start’s key, the members with their roles', async (t) => {
    await page.getByRole('link', { name: 'Project settings' }).click();
    await page.getByTestId('members').waitFor();
    t.match(page.url(), /#\/p\/default\/settings$/);
    const keys = await page.getByTestId('api-keys').locator('tbody tr').allTextContents();
    t.equal(keys.length, 1);
    t.match(keys[0], /^pk-svc-\S+sk-svc-\S{3}\.\.\.\S{4}created on first start/, 'public key, shortened secret, note');
    const members = await page.getByTestId('members').locator('tbody tr').allTextContents();
    t.equal(members.length, (await listUsers(db)).users.length, 'every user of the organization');
    for (const role of ['owner', 'member'])
      t.ok(
        members.some((m) => new RegExp(`^${role}@example\\.test.*${role}active$`).test(m)),
        `${role}: email, role, state`,
      );
  });

  await t.test('a created key is shown once, with a copy button and the warning', async (t) => {
    await page.getByLabel('Note').fill('production agents');
    await page.getByTestId('create-api-key').click();
    const notice = page.getByTestId('created-api-key');
    await notice.waitFor();
    pair = {
      publicKey: await page.getByTestId('created-public-key').inputValue(),
      secretKey: await page.getByTestId('created-secret-key').inputValue(),
    };
    t.match(pair.publicKey, /^pk-svc-/);
    t.match(pair.secretKey, /^sk-svc-\S{40,}$/);
    t.match(await page.getByTestId('secret-warning').textContent(), /you will not see it again/);
    t.equal(await page.getByTestId('created-host').inputValue(), s.adminUrl, 'the host to configure the SDKs with');
    await page.getByTestId('created-secret-key-copy').click();
    await page.getByTestId('created-secret-key-copy').filter({ hasText: 'Copied' }).waitFor();
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), pair.secretKey, 'the copy button copies it');
    const row = keyRow(page, pair.publicKey);
    t.match(await row.textContent(), /production agents/);
    t.match(await row.textContent(), /never/, 'not used yet');
    t.notMatch(await row.textContent(), pair.secretKey, 'the list shows the secret only shortened');
    await screenshot(page, 'project-settings-key-created');

    await page.reload();
    await page.getByTestId('api-keys').waitFor();
    t.equal(await page.getByTestId('created-api-key').count(), 0, 'after a reload the secret is gone');
    t.notOk((await page.content()).includes(pair.secretKey), 'nowhere in the page');
    t.equal(await keyRow(page, pair.publicKey).count(), 1, 'the key is still listed');
    const listed = await page.request.get(`${s.adminUrl}/dashboard/api/projects/default/api-keys`);
    t.notOk((await listed.text()).includes(pair.secretKey), 'nor in the list the page reads');
  });

  await t.test('the key works against the public API, and its last use is listed', async (t) => {
    const r = await projects(pair);
    t.equal(r.status, 200);
    t.same(
      ((await r.json()) as any).data.map((p: any) => p.id),
      ['default'],
    );
    await waitFor('the last use listed', async () => {
      await page.reload();
      await page.getByTestId('api-keys').waitFor();
      return !/never/.test((await keyRow(page, pair.publicKey).textContent())!);
    });
    await screenshot(page, 'project-settings');
  });

  await t.test('a member may neither create nor revoke keys; an unknown key is 404', async (t) => {
    const member = await signIn(s, 'member@example.test', password);
    const listed = await member.call('GET', '/projects/default/api-keys');
    t.equal(listed.status, 200);
    const created = listed.body.data.find((k: any) => k.publicKey === pair.publicKey);
    t.match(created, { note: 'production agents', lastUsedAt: String });
    t.notOk(JSON.stringify(listed.body).includes(pair.secretKey), 'no secret in the list');
    t.equal((await member.call('POST', '/projects/default/api-keys', {})).status, 403);
    const id = created.id;
    t.equal((await member.call('DELETE', `/projects/default/api-keys/${id}`)).status, 403);
    t.equal((await projects(pair)).status, 200, 'the key still works');
    const owner = await signIn(s, 'owner@example.test', password);
    t.equal((await owner.call('DELETE', '/projects/default/api-keys/no-such-key')).status, 404, 'an unknown key: 404');
    t.equal((await owner.call('POST', '/projects/default/api-keys', { note: 'x'.repeat(201) })).status, 400);
  });

  await t.test('revocation asks first, then the key gets 401', async (t) => {
    const row = keyRow(page, pair.publicKey);
    const dismissed = new Promise<string>((resolve) =>
      page.once('dialog', (d) => {
        resolve(d.message());
        void d.dismiss();
      }),
    );
    await row.getByTestId('revoke-api-key').click();
    t.match(await dismissed, /Revoke pk-svc-.*401/);
    t.equal(await row.count(), 1, 'dismissed: still listed');
    t.equal((await projects(pair)).status, 200, 'and working');

    page.once('dialog', (d) => void d.accept());
    await row.getByTestId('revoke-api-key').click();
    await row.waitFor({ state: 'detached' });
    // The list is drawn again after the revocation: wait for it before counting its rows.
    const rows = page.getByTestId('api-keys').locator('tbody tr');
    await rows.first().waitFor();
    t.equal(await rows.count(), 1, 'the other key stays');
    const refused = await projects(pair);
    t.equal(refused.status, 401);
    t.match(await refused.json(), { error: 'UnauthorizedError' });
  });

  await t.test('both changes are audited as the owner', async (t) => {
    const audit = await db.query<{ action: string; details: any }>(
      `SELECT action, details FROM audit_log WHERE actor = 'dashboard:owner@example.test' AND resource_type = 'api_key'
       ORDER BY id`,
    );
    t.same(
      audit.rows.map((r) => r.action),
      ['api_key.create', 'api_key.delete'],
    );
    t.equal(audit.rows[0].details.publicKey, pair.publicKey);
  });

  t.same(pageErrors, [], 'no page errors');
});
