-- Dashboard users of the organization (docs/dashboard.md "Users, roles and sessions") and their sign-in sessions.
-- One organization per deployment: a user is a member of it with one role.
CREATE TABLE users (
  id             text PRIMARY KEY,
  email          text NOT NULL,
  name           text NOT NULL DEFAULT '',
  role           text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  -- scrypt$N$r$p$salt$hash (src/users/password-hash.ts); null: the user cannot sign in with a password.
  password_hash  text,
  active         boolean NOT NULL DEFAULT true,
  -- The identity provider's id for a user provisioned through SCIM (its `externalId`).
  external_id    text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- Emails compare case-insensitively: Alice@Example.com and alice@example.com are one user.
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE dashboard_sessions (
  -- SHA-256 (hex) of the cookie's random token; the token itself is never stored.
  token_sha256  text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
