// Changing one's own password (PUT /session/password): the current one, the new one twice. Every other session of the
// user ends; this browser gets a fresh session cookie and CSRF token and stays signed in.
import { put, setCsrfToken } from '../api.ts';
import { h, replace } from '../dom.ts';
import type { SessionAnswer } from '../types.ts';
import { field, pageHeader, section, submitHandler } from '../ui.ts';
import type { ViewContext } from '../view.ts';

const MIN = 12;
const MAX = 200;

/** What is wrong with the new password before asking the server (which checks again), or ''. */
function localProblem(next: string, repeat: string): string {
  const length = [...next].length;
  if (length < MIN) return `The new password needs at least ${MIN} characters.`;
  if (length > MAX) return `The new password may have at most ${MAX} characters.`;
  if (next !== repeat) return 'The two new passwords differ.';
  return '';
}

export function passwordPage(ctx: ViewContext): Node {
  const current = h('input', {
    type: 'password',
    name: 'current-password',
    autocomplete: 'current-password',
    required: true,
    'data-testid': 'current-password',
  });
  const next = h('input', {
    type: 'password',
    name: 'new-password',
    autocomplete: 'new-password',
    required: true,
    minlength: MIN,
    maxlength: MAX,
    'data-testid': 'new-password',
  });
  const repeat = h('input', {
    type: 'password',
    name: 'repeat-password',
    autocomplete: 'new-password',
    required: true,
    'data-testid': 'repeat-password',
  });
  const message = h('p', { class: 'inline-error', role: 'alert', 'data-testid': 'password-error' });
  const done = h('div');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Change password');
  const form = h(
    'form',
    {
      class: 'form',
      onsubmit: submitHandler(message, submit, async () => {
        replace(done);
        const problem = localProblem(next.value, repeat.value);
        if (problem) throw new Error(problem);
        const answer = await put<SessionAnswer>('/session/password', {
          currentPassword: current.value,
          newPassword: next.value,
        });
        setCsrfToken(answer.csrfToken);
        form.reset();
        replace(
          done,
          h(
            'div',
            { class: 'notice success', role: 'status', 'data-testid': 'password-changed' },
            'Password changed. Your other sessions have ended; this one goes on.',
          ),
        );
      }),
    },
    field('Current password', current),
    field('New password', next, `${MIN} to ${MAX} characters, not the current one.`),
    field('Repeat the new password', repeat),
    message,
    h('div', null, submit),
  );
  return h(
    'div',
    { class: 'page' },
    pageHeader('Change password'),
    done,
    section(
      `Password of ${ctx.user.email}`,
      h('p', { class: 'hint' }, 'Changing it signs you out everywhere else.'),
      form,
    ),
  );
}
