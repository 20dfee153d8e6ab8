#!/bin/bash
# A pg_auto_failover monitor (PG_HA_ROLE=monitor) or node (PG_HA_ROLE=node, PG_HA_NAME, PG_HA_MONITOR): created on
# the first start of its volume, then run by its keeper. A node that finds itself the primary gives every
# service its database and role (postgres-init.sh, mounted as in the single-node setup), once; the standbys get
# them by replication.
set -euo pipefail
role=${PG_HA_ROLE:?PG_HA_ROLE must be monitor or node}
data=/var/lib/postgresql/ha/data
port=${PG_HA_PORT:-5432}
host=${PG_HA_HOSTNAME:-$(hostname)}
mkdir -p "$data" /var/run/postgresql
chown postgres:postgres "$data" /var/run/postgresql
chmod 0700 "$data"
as_postgres() { runuser -u postgres -- env HOME=/var/lib/postgresql "$@"; }

if [[ ! -s $data/PG_VERSION ]]; then
    case $role in
    monitor)
        as_postgres pg_autoctl create monitor --pgdata "$data" --pgport "$port" --hostname "$host" \
            --auth trust --no-ssl
        # Failover in about 15 s instead of about a minute (docs/database-failover.md).
        cat >>"$data/postgresql.conf" <<CONF
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 4000
pgautofailover.primary_demote_timeout = 5000
CONF
        ;;
    node)
        # Nodes started together take turns: a standby is made from the primary's backup once there is one.
        until as_postgres pg_autoctl create postgres --pgdata "$data" --pgport "$port" --hostname "$host" \
            --name "${PG_HA_NAME:?PG_HA_NAME must name the node}" --monitor "${PG_HA_MONITOR:?PG_HA_MONITOR must be set}" \
            --auth trust --no-ssl --pg-hba-lan --username postgres --dbname postgres; do
            echo "postgres-ha: cannot create the node yet; retrying"
            # What a failed attempt left, pg_autoctl's configuration and state files for this data directory
            # included: found again, the next attempt stopped at the missing state file, over and over.
            rm -rf "${data:?}"/* "/var/lib/postgresql/.config/pg_autoctl${data}" "/var/lib/postgresql/.local/share/pg_autoctl${data}"
            sleep 3
        done
        # The services' roles log in with their passwords from anywhere; pg_autoctl's own users are trusted on
        # the compose network only (--pg-hba-lan).
        echo "host all all all scram-sha-256" >>"$data/pg_hba.conf"
        cat >>"$data/postgresql.conf" <<CONF
max_connections = 200
autovacuum_naptime = 10s
password_encryption = scram-sha-256
CONF
        ;;
    *) echo "postgres-ha: PG_HA_ROLE must be monitor or node" >&2; exit 2 ;;
    esac
fi

if [[ $role == node && -r /docker-entrypoint-initdb.d/10-parse-databases.sh ]]; then
    (
        until [[ $(as_postgres psql -h /var/run/postgresql -p "$port" -Atc "select not pg_is_in_recovery()" 2>/dev/null) == t ]]; do
            [[ -s $data/parse-databases.done ]] && exit 0
            sleep 3
        done
        PGHOST=/var/run/postgresql PGPORT=$port runuser -u postgres --preserve-environment -- \
            bash /docker-entrypoint-initdb.d/10-parse-databases.sh && date >"$data/parse-databases.done"
    ) &
fi
exec runuser -u postgres -- env HOME=/var/lib/postgresql pg_autoctl run --pgdata "$data"
