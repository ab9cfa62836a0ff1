#!/usr/bin/env bash
# Starts the machine's PostgreSQL for the integration tests and gives them a fresh, empty database
# "lazarus" owned by user "lazarus" (password "lazarus", local only). Idempotent; needs root.
set -euo pipefail

if ! command -v pg_ctlcluster > /dev/null; then
    apt-get update -qq && apt-get install -y -qq postgresql > /dev/null
fi
version=$(ls /etc/postgresql | sort -n | tail -1)
conf=/etc/postgresql/$version/main/conf.d/lazarus.conf
# XA (prepared transactions) is how a step's database work commits together with its JMS messages: at least the
# server's connection pool (lazarus.db.max-pool-size, 64), with room for transactions left in doubt by a crash.
if [ "$(cat "$conf" 2>/dev/null)" != "max_prepared_transactions = 128" ]; then
    echo "max_prepared_transactions = 128" > "$conf"
    pg_ctlcluster "$version" main stop > /dev/null 2>&1 || true
fi
pg_ctlcluster "$version" main start > /dev/null 2>&1 || pg_ctlcluster "$version" main status > /dev/null
for _ in $(seq 1 60); do su postgres -c "pg_isready -q" && break; sleep 0.5; done

su postgres -c "psql -q -v ON_ERROR_STOP=1" <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'lazarus') THEN
    CREATE ROLE lazarus LOGIN PASSWORD 'lazarus';
  END IF;
END $$;
DROP DATABASE IF EXISTS lazarus WITH (FORCE);
CREATE DATABASE lazarus OWNER lazarus;
SQL
echo "PostgreSQL $version ready: database lazarus (max_prepared_transactions=$(su postgres -c "psql -tAc 'show max_prepared_transactions'"))"
