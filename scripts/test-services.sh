#!/usr/bin/env bash
# Brings up what the test suite needs on a Debian machine, as root: PostgreSQL on 127.0.0.1:5432 accepting the
# `postgres` user without a password (a trust line for loopback, in this local test cluster only), Redis on
# 127.0.0.1:6379 without persistence, and Debian's chromium for the dashboard's browser test.
# Idempotent: when everything already runs it only checks, in well under a second.
# Usage: sudo bash scripts/test-services.sh
set -euo pipefail

PG_PORT=5432
REDIS_PORT=6379
say() { printf 'test-services: %s\n' "$*"; }
fail() { printf 'test-services: FAILED: %s\n' "$*" >&2; exit 1; }

need_root() {
  [ "$(id -u)" -eq 0 ] || fail "$1 needs root (run: sudo bash scripts/test-services.sh)"
}

apt_updated=0
apt_install() {
  need_root "installing $*"
  if [ "$apt_updated" -eq 0 ]; then
    say "apt-get update"
    apt-get update -qq || fail "apt-get update"
    apt_updated=1
  fi
  say "installing $*"
  # policy-rc.d 101 keeps the package scripts from starting services: this script starts them its own way.
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  local status=0
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || status=$?
  rm -f /usr/sbin/policy-rc.d
  [ "$status" -eq 0 ] || fail "apt-get install $* (exit $status)"
}

pg_answers() { pg_isready -h 127.0.0.1 -p "$PG_PORT" -q 2>/dev/null; }
pg_accepts_test_user() { psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -w -tAc 'select 1' >/dev/null 2>&1; }
redis_answers() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

# ---- packages ----
missing=()
command -v pg_ctlcluster >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
[ -x "${SVC_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi

# ---- PostgreSQL ----
if pg_answers && pg_accepts_test_user; then
  say "PostgreSQL already answers on 127.0.0.1:$PG_PORT"
else
  need_root "starting PostgreSQL"
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  [ -n "$version" ] || fail "no PostgreSQL server under /usr/lib/postgresql"
  if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$version main"; then
    say "creating cluster $version/main"
    pg_createcluster --port "$PG_PORT" "$version" main >/dev/null || fail "pg_createcluster $version main"
  fi
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  marker='# svc test cluster: loopback trusted'
  if ! grep -qF "$marker" "$hba"; then
    say "trusting loopback connections in $hba (test cluster only)"
    {
      echo "$marker"
      echo 'host    all             all             127.0.0.1/32            trust'
      echo 'host    all             all             ::1/128                 trust'
      cat "$hba"
    } >"$hba.svc-new" && mv "$hba.svc-new" "$hba"
    chown postgres:postgres "$hba"
  fi
  status=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $4}')
  if [ "$status" = online ]; then
    say "reloading PostgreSQL $version/main"
    pg_ctlcluster --skip-systemctl-redirect "$version" main reload || fail "pg_ctlcluster reload"
  else
    say "starting PostgreSQL $version/main"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start \
      || fail "pg_ctlcluster start (log: /var/log/postgresql/postgresql-$version-main.log)"
  fi
fi

# ---- Redis ----
if redis_answers; then
  say "Redis already answers on 127.0.0.1:$REDIS_PORT"
else
  need_root "starting Redis"
  mkdir -p /var/lib/svc-test-redis
  say "starting Redis on 127.0.0.1:$REDIS_PORT (no persistence)"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
    --dir /var/lib/svc-test-redis --logfile /var/lib/svc-test-redis/redis.log >/dev/null \
    || fail "redis-server (log: /var/lib/svc-test-redis/redis.log)"
fi

# ---- wait until both answer ----
for _ in $(seq 1 100); do
  if pg_answers && pg_accepts_test_user && redis_answers; then
    say "ready: postgres://postgres@127.0.0.1:$PG_PORT/postgres, redis://127.0.0.1:$REDIS_PORT, chromium"
    exit 0
  fi
  sleep 0.2
done
pg_answers || fail "PostgreSQL does not answer on 127.0.0.1:$PG_PORT"
pg_accepts_test_user || fail "PostgreSQL refuses user postgres without a password on 127.0.0.1:$PG_PORT"
fail "Redis does not answer on 127.0.0.1:$REDIS_PORT"
