# shellcheck shell=bash
# PostgreSQL that fails over by itself (PARSE_PG_NODES above 1), sourced by deploy/stack: pg_auto_failover's
# monitor and PARSE_PG_NODES nodes on this machine, each run by its keeper (`pg_autoctl run`). The first node
# created is the primary; commits wait for one standby (pg_auto_failover's `ANY 1` quorum); when the primary is
# gone, the monitor promotes the standby that has the most WAL and a node that comes back rejoins as a standby.
# Node N listens on PARSE_PG_PORT + N - 1, the monitor on PARSE_PG_PORT + 9. Why pg_auto_failover and how to
# run the nodes on separate machines: docs/database-failover.md.

readonly PG_CLUSTER_PACKAGES=(pg-auto-failover-cli postgresql-15-auto-failover)

pg_cluster_enabled() { ((PARSE_PG_NODES > 1)); }
pg_node_port() { echo $((PARSE_PG_PORT + $1 - 1)); }
pg_monitor_port() { echo $((PARSE_PG_PORT + 9)); }
pg_monitor_url() { echo "postgres://autoctl_node@127.0.0.1:$(pg_monitor_port)/pg_auto_failover?sslmode=disable"; }

# The libpq URL of database $1 on whichever node is the primary: libpq tries the nodes in turn and keeps the
# one that accepts writes.
pg_cluster_url() {
    local node hosts=()
    for ((node = 1; node <= PARSE_PG_NODES; node++)); do hosts+=("127.0.0.1:$(pg_node_port "$node")"); done
    echo "postgres://postgres@$(IFS=,; echo "${hosts[*]}")/$1?target_session_attrs=read-write"
}

# pg_autoctl keeps its configuration and state under XDG folders: this stack's own, inside its PostgreSQL home.
# Its own connections go to standbys too: the tests' PGTARGETSESSIONATTRS must not reach it.
pg_autoctl_as_owner() {
    local home
    home=$(readlink -f "$PG_LINK")
    as_pg_owner env -u PGTARGETSESSIONATTRS PATH="$PG_BIN:/usr/bin:/bin" XDG_CONFIG_HOME="$home/xdg/config" XDG_DATA_HOME="$home/xdg/data" \
        XDG_RUNTIME_DIR="$home/xdg/run" pg_autoctl "$@"
}

# The folder of node $1 (or of the monitor, for `monitor`).
pg_node_data() { echo "$(readlink -f "$PG_LINK")/$1"; }

# The pid of the keeper of $1 (a node name or `monitor`), from pg_autoctl's own pid file, if it runs.
pg_keeper_pid() {
    local home file pid
    home=$(readlink -f "$PG_LINK")
    file="$home/xdg/run/pg_autoctl$(pg_node_data "$1")/pg_autoctl.pid"
    [[ -r $file ]] || return 1
    read -r pid <"$file" || return 1
    process_alive "$pid" pg_autoctl || return 1
    echo "$pid"
}

pg_keeper_start() {
    local name=$1 home owner=()
    home=$(readlink -f "$PG_LINK")
    if pg_keeper_pid "$name" >/dev/null; then return 0; fi
    if ((EUID == 0)); then owner=(runuser -u postgres --); fi
    (cd / && close_inherited_fds && export GLIBC_TUNABLES="${GLIBC_TUNABLES:-$PG_MALLOC_TUNABLES}" &&
        exec perl -e "$DEFAULT_SIGNALS_EXEC" -- setsid "${owner[@]}" env -u PGTARGETSESSIONATTRS PATH="$PG_BIN:/usr/bin:/bin" \
            XDG_CONFIG_HOME="$home/xdg/config" XDG_DATA_HOME="$home/xdg/data" XDG_RUNTIME_DIR="$home/xdg/run" \
            pg_autoctl run --pgdata "$(pg_node_data "$name")" </dev/null >>"$LOG_DIR/postgres-$name.log" 2>&1) &
    local deadline=$((SECONDS + 30))
    until pg_keeper_pid "$name" >/dev/null; do
        ((SECONDS < deadline)) || die "the keeper of $name did not start (see $LOG_DIR/postgres-$name.log)"
        sleep 0.2
    done
}

# Every node's reported and assigned states, one `name reported assigned port` line each.
pg_cluster_states() {
    pg_autoctl_as_owner show state --pgdata "$(pg_node_data monitor)" --json 2>/dev/null | python3 -c '
import json, sys
for node in json.load(sys.stdin):
    print(node["nodename"], node["current_group_state"], node["assigned_group_state"], node["nodeport"])' 2>/dev/null || true
}

# Waits until node $1 is the primary or a standby (at most $2 seconds).
pg_wait_node_serving() {
    local name=$1 deadline=$((SECONDS + $2)) line
    while ((SECONDS < deadline)); do
        line=$(pg_cluster_states | awk -v n="$name" '$1 == n && $2 == $3 && ($2 == "primary" || $2 == "secondary" || $2 == "single" || $2 == "wait_primary")')
        [[ -z $line ]] || return 0
        sleep 0.5
    done
    die "PostgreSQL node $name did not come up (see $LOG_DIR/postgres-$name.log)"
}

# The fast failover the docs describe: the monitor checks each node every second, gives up on one after 4 s
# without an answer, and lets a standby take over 5 s after it told a primary it cannot reach to stop (its
# defaults take about a minute in all). A primary cut off but alive cannot acknowledge a write meanwhile: its
# commits wait for a standby, and the standbys follow the monitor.
pg_write_monitor_settings() {
    local data=$1
    cat >"$data/stack.conf" <<EOF
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 4000
pgautofailover.primary_demote_timeout = 5000
EOF
    grep -q "stack.conf" "$data/postgresql.conf" || echo "include_if_exists = 'stack.conf'" >>"$data/postgresql.conf"
    if ((EUID == 0)); then chown postgres:postgres "$data/stack.conf"; fi
}

pg_write_node_settings() {
    local data=$1
    postgres_settings >"$data/stack.conf"
    grep -q "stack.conf" "$data/postgresql.conf" || echo "include_if_exists = 'stack.conf'" >>"$data/postgresql.conf"
    if ((EUID == 0)); then chown postgres:postgres "$data/stack.conf"; fi
}

pg_cluster_start() {
    find_postgres_binaries
    install_missing_packages "${PG_CLUSTER_PACKAGES[@]}"
    prepare_postgres_home
    local home node name port
    home=$(readlink -f "$PG_LINK")
    mkdir -p "$home/xdg/config" "$home/xdg/data" "$home/xdg/run"
    chmod 700 "$home/xdg/run"
    if ((EUID == 0)); then chown -R postgres:postgres "$home/xdg"; fi
    if [[ ! -f $home/monitor/PG_VERSION ]]; then
        ! port_in_use "$(pg_monitor_port)" || die "port $(pg_monitor_port) (the failover monitor) is used by another program"
        say "creating the failover monitor on 127.0.0.1:$(pg_monitor_port)"
        pg_autoctl_as_owner create monitor --pgdata "$home/monitor" --pgport "$(pg_monitor_port)" --hostname 127.0.0.1 \
            --listen 127.0.0.1 --auth trust --no-ssl >"$LOG_DIR/postgres-monitor-create.log" 2>&1 ||
            { tail -n 20 "$LOG_DIR/postgres-monitor-create.log" >&2; die "the failover monitor could not be created"; }
        pg_write_monitor_settings "$home/monitor"
    fi
    pg_keeper_start monitor
    for ((node = 1; node <= PARSE_PG_NODES; node++)); do
        name="node$node" port=$(pg_node_port "$node")
        if [[ ! -f $home/$name/PG_VERSION ]]; then
            ! port_in_use "$port" || die "port $port (PostgreSQL $name) is used by another program; set PARSE_PG_PORT"
            say "creating PostgreSQL $name on 127.0.0.1:$port"
            pg_autoctl_as_owner create postgres --pgdata "$home/$name" --pgport "$port" --hostname 127.0.0.1 \
                --listen 127.0.0.1 --name "$name" --monitor "$(pg_monitor_url)" --auth trust --no-ssl \
                --username postgres --dbname postgres >"$LOG_DIR/postgres-$name-create.log" 2>&1 ||
                { tail -n 20 "$LOG_DIR/postgres-$name-create.log" >&2; die "PostgreSQL $name could not be created"; }
            pg_write_node_settings "$home/$name"
            pg_keeper_start "$name"
            # A standby is made from the primary's backup: each new node waits for the one before it.
            pg_wait_node_serving "$name" 120
        else
            # Nodes that exist start together, as machines would, and find their roles with the monitor.
            pg_keeper_start "$name"
        fi
    done
    for ((node = 1; node <= PARSE_PG_NODES; node++)); do pg_wait_node_serving "node$node" 120; done
    local deadline=$((SECONDS + 60))
    until "$PG_BIN/psql" -At -d "$(pg_cluster_url postgres)" -c "select 1" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || die "no PostgreSQL node accepts writes"
        sleep 0.5
    done
    say "PostgreSQL: $PARSE_PG_NODES nodes with automatic failover, primary $(pg_cluster_primary)"
}

# `name port` of the primary, as the monitor has it.
pg_cluster_primary() { pg_cluster_states | awk '$3 == "primary" || $3 == "wait_primary" || $3 == "single" { print $1, $4; exit }'; }

pg_cluster_stop() {
    [[ -d $PG_LINK ]] || return 0
    find_postgres_binaries
    local node name pid
    # The monitor first: nodes stopping one by one would otherwise look like failures, each one answered by a
    # failover, and the cluster would start again with roles moved.
    for name in monitor $(for ((node = PARSE_PG_NODES; node >= 1; node--)); do echo "node$node"; done); do
        pid=$(pg_keeper_pid "$name") || continue
        say "stopping PostgreSQL $name (keeper pid $pid)"
        kill -TERM "$pid" 2>/dev/null || true
        wait_gone 30 "$pid" || pg_kill_node "$name"
    done
}

# Kills node $1 as its machine would die: its keeper, everything the keeper started, and its postmaster, with
# SIGKILL, so nothing restarts it.
pg_kill_node() {
    local name=$1 pid postmaster="" pids=() next
    pid=$(pg_keeper_pid "$name") || pid=""
    if [[ -r $(pg_node_data "$name")/postmaster.pid ]]; then read -r postmaster <"$(pg_node_data "$name")/postmaster.pid" || true; fi
    local queue=($pid)
    while ((${#queue[@]} > 0)); do
        next=${queue[0]}
        queue=("${queue[@]:1}")
        [[ -n $next ]] || continue
        pids+=("$next")
        # shellcheck disable=SC2207
        queue+=($(ps -o pid= --ppid "$next" 2>/dev/null || true))
    done
    if [[ -n $postmaster ]] && process_alive "$postmaster" postgres; then pids+=("$postmaster"); fi
    ((${#pids[@]} > 0)) || return 0
    kill -KILL "${pids[@]}" 2>/dev/null || true
}

# `deploy/stack postgres kill primary|standby|nodeN`: for the failover tests.
pg_cluster_kill() {
    pg_cluster_enabled || die "postgres kill needs PARSE_PG_NODES above 1"
    local which=${1:-primary} name
    case $which in
    primary) name=$(pg_cluster_primary | awk '{print $1}') ;;
    standby) name=$(pg_cluster_states | awk '$3 == "secondary" { print $1; exit }') ;;
    node[1-9]) name=$which ;;
    *) die "usage: deploy/stack postgres kill primary|standby|nodeN" ;;
    esac
    [[ -n $name ]] || die "no $which node to kill"
    say "killing PostgreSQL $name with SIGKILL"
    pg_kill_node "$name"
    echo "$name"
}

pg_cluster_status() {
    local states
    find_postgres_binaries
    states=$(pg_cluster_states | awk '{ printf "%s %s (%s)  ", $1, $2, $4 }')
    echo "${states:-monitor not answering}"
}
