// scrypt password hashes (src/observability/users/password-hash.ts): the stored format, a fresh salt per hash, parameters read back
// from the string, wrong passwords and damaged strings refused; generated passwords.
import t from 'tap';
import {
  DEFAULT_PARAMS,
  generatePassword,
  hashPassword,
  verifyPassword,
} from '../../src/observability/users/password-hash.ts';

const FORMAT = /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/;

t.test('a hash names its parameters, salt and key, and verifies its password only', async (t) => {
  t.same(DEFAULT_PARAMS, { N: 32768, r: 8, p: 1 });
  const stored = await hashPassword('correct horse battery staple');
  t.match(stored, FORMAT);
  t.equal(await verifyPassword('correct horse battery staple', stored), true);
  t.equal(await verifyPassword('correct horse battery stapl', stored), false);
  t.equal(await verifyPassword('Correct horse battery staple', stored), false);
  t.equal(await verifyPassword('', stored), false);
});

t.test('every hash has its own salt', async (t) => {
  const [a, b] = await Promise.all([hashPassword('same'), hashPassword('same')]);
  t.not(a, b);
  t.not(a.split('$')[4], b.split('$')[4]);
  t.equal(await verifyPassword('same', a), true);
  t.equal(await verifyPassword('same', b), true);
});

t.test('the parameters come from the stored string, not the current defaults', async (t) => {
  const cheap = await hashPassword('pässwörd ✓', { N: 1024, r: 4, p: 2 });
  t.match(cheap, /^scrypt\$1024\$4\$2\$/);
  t.equal(await verifyPassword('pässwörd ✓', cheap), true);
  t.equal(await verifyPassword('passwörd ✓', cheap), false);
  const raised = cheap.replace('$1024$', '$2048$');
  t.equal(await verifyPassword('pässwörd ✓', raised), false, 'other parameters give another key');
});

t.test('strings that are not our hashes never verify', async (t) => {
  const good = await hashPassword('pw', { N: 1024, r: 8, p: 1 });
  const [, , , , salt, key] = good.split('$');
  const damaged = [
    '',
    'pw',
    `bcrypt$1024$8$1$${salt}$${key}`,
    `scrypt$1024$8$1$${salt}`,
    `scrypt$1000$8$1$${salt}$${key}`,
    `scrypt$${2 ** 21}$8$1$${salt}$${key}`,
    `scrypt$1024$0$1$${salt}$${key}`,
    `scrypt$1024$8$1$$${key}`,
    `scrypt$1024$8$1$${salt}$`,
    `scrypt$1024$8$1$${salt}$${key.slice(0, -4)}`,
  ];
  for (const stored of damaged) t.equal(await verifyPassword('pw', stored), false, JSON.stringify(stored));
  t.equal(await verifyPassword('pw', good), true);
});

t.test('generated passwords: 24 base64url characters, never repeated', async (t) => {
  const seen = new Set(Array.from({ length: 200 }, generatePassword));
  t.equal(seen.size, 200);
  for (const p of seen) t.match(p, /^[A-Za-z0-9_-]{24}$/);
});
