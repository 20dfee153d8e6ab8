#!/usr/bin/env bash
# Runs once, when the postgres container initialises an empty data volume
# (mounted into /docker-entrypoint-initdb.d). Gives each service its own database and login
# role, so that no service can read another one's tables: CONNECT is revoked from PUBLIC and
# only the owning role may connect. Re-running it is harmless (everything is created only
# if missing), so it can also be applied by hand to an existing cluster.
set -euo pipefail

password="${PARSE_DB_PASSWORD:?PARSE_DB_PASSWORD must hold the password of the service roles}"

for service in auth posts votes files cloud; do
    name="parse_${service}"
    # psql variables (:'name', :'password') are quoted by psql itself, and format() quotes
    # again for the generated statement, so a password with quotes cannot break the SQL.
    psql --no-psqlrc -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" \
         --dbname "${POSTGRES_DB:-postgres}" --set=name="$name" --set=password="$password" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'name', :'password')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'name') \gexec
SELECT format('CREATE DATABASE %I OWNER %I', :'name', :'name')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'name') \gexec
SELECT format('REVOKE CONNECT, TEMPORARY ON DATABASE %I FROM PUBLIC', :'name') \gexec
-- Each app created at run time gets a database of its own per service (parse_<service>_app_<id>), which the
-- service creates.
SELECT format('ALTER ROLE %I CREATEDB', :'name') \gexec
-- Readiness reports how far the standbys are behind (pg_stat_replication shows positions to pg_monitor only).
SELECT format('GRANT pg_monitor TO %I', :'name') \gexec
SQL
    echo "postgres-init: database ${name} ready for role ${name}"
done
