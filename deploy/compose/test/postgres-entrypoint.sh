#!/bin/bash
# First start: initdb, then the init scripts against a server that listens on its Unix socket only (as the
# official image does, so a TCP health check does not pass before they are done). Then the server itself.
set -euo pipefail
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=postgres}"
export POSTGRES_USER POSTGRES_DB
if [[ ${1:-} == postgres ]]; then shift; set -- postgres "$@"; else exec "$@"; fi

mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 0700 "$PGDATA"
as_postgres() { runuser -u postgres -- "$@"; }

if [[ ! -s $PGDATA/PG_VERSION ]]; then
    password_file=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}" >"$password_file"
    chown postgres "$password_file"
    as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$password_file" -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$password_file"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=/var/run/postgresql" -w start >/dev/null
    if [[ $POSTGRES_DB != postgres ]]; then as_postgres createdb -U "$POSTGRES_USER" "$POSTGRES_DB"; fi
    for script in /docker-entrypoint-initdb.d/*.sh; do
        [[ -e $script ]] || continue
        echo "entrypoint: running $script"
        # Run as the postgres user with the container's environment, as the official image does.
        runuser -u postgres --preserve-environment -- bash "$script"
    done
    as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec runuser -u postgres -- "$@" -D "$PGDATA" -c unix_socket_directories=/var/run/postgresql
