// The sign-in page: email and password → a session cookie and the CSRF token.
import { post } from '../api.ts';
import { h } from '../dom.ts';
import type { SessionAnswer } from '../types.ts';
import { field, submitHandler } from '../ui.ts';

export function signInPage(onSignedIn: (session: SessionAnswer) => void, notice?: string): HTMLElement {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, autofocus: true });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const message = h('p', { class: 'inline-error', role: 'alert', 'data-testid': 'sign-in-error' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'sign-in',
      onsubmit: submitHandler(
        message,
        submit,
        async () =>
          onSignedIn(await post<SessionAnswer>('/session', { email: email.value.trim(), password: password.value })),
        () => password.select(),
      ),
    },
    h('h1', null, 'svc'),
    h('p', { class: 'hint' }, 'Sign in to the dashboard.'),
    notice ? h('p', { class: 'notice' }, notice) : null,
    field('Email', email),
    field('Password', password),
    message,
    submit,
  );
  return h('main', { class: 'sign-in-page' }, form);
}
