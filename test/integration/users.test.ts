// The users repository (src/platform/store/repos/users.ts) on both backends: an email change that loses a race to another user
// taking the same email is UserExistsError (the routes' 409), not the store's unique violation.
import t from 'tap';
import type { Queryable } from '../../src/platform/store/database.ts';
import { createUser, getUser, updateUser, UserExistsError } from '../../src/platform/store/repos/users.ts';
import { STORE_BACKENDS, testDatabase } from '../helpers/store.ts';

for (const backend of STORE_BACKENDS) {
  t.test(`users on ${backend}`, async (t) => {
    const db = await testDatabase(t, backend);
    await createUser(db, { email: 'ada@example.com', role: 'admin' });
    const bob = await createUser(db, { email: 'bob@example.com', role: 'member' });

    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (err: unknown) => err,
      );
    t.ok(
      (await refusal(updateUser(db, bob.id, { email: 'ADA@example.com' }))) instanceof UserExistsError,
      'the check finds a taken email',
    );

    // The check runs before another request takes the email: it sees it free, the update meets the unique index.
    const racing: Queryable = {
      query: (sql, params) =>
        sql.startsWith('SELECT 1 FROM users WHERE lower(email)')
          ? Promise.resolve({ rows: [], rowCount: 0 })
          : db.query(sql, params),
      exec: (sql) => db.exec(sql),
    };
    const raced = await refusal(updateUser(racing, bob.id, { email: 'Ada@Example.com', name: 'Bob' }));
    t.ok(raced instanceof UserExistsError, 'the unique violation is UserExistsError');
    t.match(raced, { message: "a user with the email 'Ada@Example.com' already exists" });
    t.match(await getUser(db, bob.id), { email: 'bob@example.com', name: '' }, 'unchanged');
    t.match(
      await updateUser(racing, bob.id, { email: 'robert@example.com' }),
      { email: 'robert@example.com' },
      'a free email still changes',
    );
  });
}
