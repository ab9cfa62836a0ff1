#!/usr/bin/env bash
# Brings up and tears down a Lazarus stack: a standalone Artemis broker (with its web console) and a
# WildFly configured from this folder. Maven calls it (see pom.xml); it only uses what the build
# unpacked under target/servers.
#
#   stack.sh it-up | it-down       broker + configured WildFly base dir for the integration tests
#                                  (Arquillian starts and stops WildFly itself)
#   stack.sh demo-up | demo-down   the local stack: broker, WildFly with the WAR, demo runs submitted
#   stack.sh bench-up              the same stack without the demo runs (the pipeline benchmark's; it
#                                  stops it with demo-down and its own STACK_DIR)
#   stack.sh demo-kill             kill -9 the demo stack's WildFly (the crash drill's fault)
#   stack.sh demo-restart          start it again with its state (data, deployment, transaction log)
#   stack.sh broker-kill | broker-restart   kill -9 the demo stack's broker / start it again (broker drill)
#   stack.sh documents-stop | documents-start   take the stack's stand-in document service (the demo's fetch step
#                                  calls it) down / bring it back: fetching then fails with a refused connection
#                                  until it is back (outage drill); STACK_DIR=target/cluster for the two-node stack
#
#   stack.sh hold off | hold on    switch Lazarus's automatic hold of steps off / back on, on every running WildFly
#                                  of the stack (system property lazarus.hold.enabled; read again within 10 s): the
#                                  outage drill's comparison without it; STACK_DIR=target/cluster for both nodes
#
#   stack.sh db-stop | db-start    stop / start the stack's database: its embedded PostgreSQL, or the
#                                  machine's PostgreSQL under a stack on it (database drill; needs root)
#
#   stack.sh cluster-up | cluster-down   the production topology on this machine, in target/cluster: one
#                                  PostgreSQL, two clustered Artemis brokers (static cluster, ON_DEMAND load
#                                  balancing, redistribution) with consoles on 8161 and 8162, and two WildFly
#                                  nodes, node 1 on broker 1 (8080) and node 2 on broker 2 (8280), demo runs
#   stack.sh cluster-node-kill N | cluster-node-stop N | cluster-node-start N   kill -9 node N / stop it /
#                                  start it again with its state
#   stack.sh cluster-broker-stop N | cluster-broker-start N   stop broker N / start it again with its journal
#
#   stack.sh prometheus-up | prometheus-down   a Prometheus (Debian's package: apt-get install prometheus) on
#                                  127.0.0.1:9090, data in target/prometheus, scraping the demo stack's (or the
#                                  cluster's two nodes') /prometheus every 5 s with the alert rules loaded
#
# Environment (set by the pom): WILDFLY_HOME, ARTEMIS_HOME, STACK_DIR, BROKER_PORT, CONSOLE_PORT,
# LAZARUS_DB (embedded|postgresql), DB_PORT and PG_DIR (embedded), JDBC_DRIVER, WAR, DOCUMENTS_PORT (the
# document service's, 8090 unless set; the tests' is 8190), JAVA_HOME (the JDK that runs it, else java on the PATH).
#
# Every stack that runs the demo pipeline (it-up, demo-up, bench-up, cluster-up: one service both nodes call)
# starts the stand-in document service (wildfly-config/DocumentService.java, a JDK-only program) first, on
# 127.0.0.1:$DOCUMENTS_PORT, and tells WildFly where it is (system property lazarus.demo.documents-url, in the
# configuration); its pid, port and log are documents.pid, documents.port and documents.log in the stack dir.
#
# Databases: "embedded" (the default) is PostgreSQL from Maven Central (the io.zonky.test.postgres binaries,
# unpacked by the build), one cluster per stack in $STACK_DIR/postgres on 127.0.0.1:$DB_PORT, started and
# stopped with the stack; "postgresql" is a PostgreSQL you run (.ci/postgres.sh prepares the machine's).
# (H2 was the default until its file grew by about 130 KB per run under load: see benchmarks.md.)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
case "${1:-}" in
    cluster-*) STACK_DIR="${STACK_DIR:-$repo/target/cluster}" ;;
    *) STACK_DIR="${STACK_DIR:-$repo/target/demo}" ;;
esac
# the two-broker, two-node topology (cluster-up): node n on broker n, WildFly port offset 200 * (n - 1)
CLUSTER_BROKER_PORTS=(61616 61626)
CLUSTER_CONSOLE_PORTS=(8161 8162)
CLUSTER_PASSWORD=cluster   # local-only, as the other local credentials

# Local-only credentials, never used outside this machine: documented in the README.
BROKER_USER=admin
BROKER_PASSWORD=admin
VIEWER_PASSWORD=viewer-pw
OPERATOR_PASSWORD=operator-pw
# the management user Prometheus scrapes /prometheus on the management port with (no role: the metrics and nothing else)
METRICS_PASSWORD=metrics-pw

log() { printf '[stack] %s\n' "$*"; }

# fails if something already listens on the port: another stack (the demo's and the cluster's share ports)
require_free_port() { # port, what
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
        log "port $1 ($2) is already in use: another stack is running (bash wildfly-config/stack.sh demo-down | cluster-down)"
        return 1
    fi
}

wait_for_port() { # port, what, seconds
    local port=$1 what=$2 seconds=$3
    for _ in $(seq 1 $((seconds * 4))); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        sleep 0.25
    done
    log "$what did not open port $port within ${seconds}s"; return 1
}

# broker_up [instance dir] [port] [console port] [more options of "artemis create"]: a broker with the project's
# settings (broker.properties, read by Artemis from the instance's etc/ at every start)
broker_up() {
    local dir=${1:-$STACK_DIR/broker} port=${2:-$BROKER_PORT} console=${3:-$CONSOLE_PORT}
    shift $(( $# < 3 ? $# : 3 ))
    # (one per line: under set -e a failure on the left of && would not stop the script)
    require_free_port "$port" "Artemis"
    require_free_port "$console" "Artemis console"
    "$ARTEMIS_HOME/bin/artemis" create "$dir" --silent --force \
        --user "$BROKER_USER" --password "$BROKER_PASSWORD" --require-login \
        --host 127.0.0.1 --http-host 127.0.0.1 --http-port "$console" --default-port "$port" \
        --no-amqp-acceptor --no-stomp-acceptor --no-mqtt-acceptor --no-hornetq-acceptor \
        --java-memory 512M "$@" > "$dir.create.log"
    cp "$here/broker.properties" "$dir/etc/broker.properties"
    "$dir/bin/artemis-service" start > /dev/null
    wait_for_port "$port" "Artemis" 60
    log "Artemis broker on 127.0.0.1:$port, console http://127.0.0.1:$console/console"
}

broker_down() {
    local dir
    for dir in "$STACK_DIR/broker" "$STACK_DIR"/broker-[0-9]*; do
        if [ -x "$dir/bin/artemis-service" ]; then
            "$dir/bin/artemis-service" stop > /dev/null 2>&1 || true
        fi
    done
}

# A private copy of WildFly's standalone/ folder, configured by the CLI scripts in this folder, so the
# unpacked server stays pristine and the demo and the tests never share state.
# wildfly_configure [base dir] [more CLI scripts of this folder]
wildfly_configure() {
    local base=${1:-$STACK_DIR/wildfly}
    shift $(( $# < 1 ? $# : 1 ))
    cp -r "$WILDFLY_HOME/standalone" "$base"
    if [ ! -d "$WILDFLY_HOME/modules/org/postgresql" ]; then
        "$WILDFLY_HOME/bin/jboss-cli.sh" --command="module add --name=org.postgresql --resources=$JDBC_DRIVER --dependencies=java.se,jakarta.transaction.api" \
            > "$STACK_DIR/module.log" 2>&1 || { log "could not add the PostgreSQL driver module"; cat "$STACK_DIR/module.log"; return 1; }
    fi
    cat "$here/lazarus.cli" > "$STACK_DIR/configure.cli"
    if [ "$(database)" = embedded ]; then
        cat >> "$STACK_DIR/configure.cli" <<CLI
if (outcome != success) of /system-property=lazarus.db.port:read-resource
    /system-property=lazarus.db.port:add(value=$(db_port))
end-if
CLI
    fi
    cat >> "$STACK_DIR/configure.cli" <<CLI
if (outcome != success) of /system-property=lazarus.demo.documents-url:read-resource
    /system-property=lazarus.demo.documents-url:add(value="http://127.0.0.1:$(documents_port)")
end-if
CLI
    cat "$here/datasource-postgresql.cli" >> "$STACK_DIR/configure.cli"
    local more
    for more in "$@"; do cat "$here/$more" >> "$STACK_DIR/configure.cli"; done
    { echo "embed-server --server-config=standalone-full.xml --std-out=discard"; cat "$STACK_DIR/configure.cli"; echo "stop-embedded-server"; } > "$STACK_DIR/run.cli"
    JAVA_OPTS="-Djboss.server.base.dir=$base" "$WILDFLY_HOME/bin/jboss-cli.sh" --file="$STACK_DIR/run.cli" > "$base.configure.log" 2>&1 \
        || { log "WildFly configuration failed, see $base.configure.log"; cat "$base.configure.log"; return 1; }
    "$WILDFLY_HOME/bin/add-user.sh" -sc "$base/configuration" -a -s -u viewer -p "$VIEWER_PASSWORD" -g viewer
    "$WILDFLY_HOME/bin/add-user.sh" -sc "$base/configuration" -a -s -u operator -p "$OPERATOR_PASSWORD" -g viewer,operator
    "$WILDFLY_HOME/bin/add-user.sh" -sc "$base/configuration" -s -u metrics -p "$METRICS_PASSWORD"
    echo "$(database)" > "$STACK_DIR/database"
    log "WildFly base directory $base configured (database: $(database))"
}

fresh_stack_dir() {
    documents_stop quiet
    broker_down
    embedded_pg_stop
    rm -rf "$STACK_DIR"
    mkdir -p "$STACK_DIR"
}

# wildfly_start [base dir] [broker port] [port offset] [node name]: its pid in <base dir>.pid
wildfly_start() {
    local base=${1:-$STACK_DIR/wildfly} port=${2:-$BROKER_PORT} offset=${3:-0} node=${4:-}
    local pidfile="$STACK_DIR/wildfly.pid"
    [ "$base" = "$STACK_DIR/wildfly" ] || pidfile="$base.pid"
    # each node of a cluster its own name: the timers and the transaction logs tell the nodes apart by it
    local naming=()
    [ -z "$node" ] || naming=(-Djboss.node.name="$node" -Djboss.tx.node.id="$node")
    require_free_port $((9990 + offset)) "WildFly management"
    require_free_port $((8080 + offset)) "WildFly HTTP"
    # spans go to the OpenTelemetry collector at LAZARUS_OTEL_ENDPOINT (gRPC, as http://host:4317); without one the
    # runs still get trace ids (in the logs, on dead letters) but nothing is exported, instead of a warning every batch
    local tracing=(-Dotel.traces.exporter=none)
    [ -z "${LAZARUS_OTEL_ENDPOINT:-}" ] || tracing=(-Dlazarus.otel.endpoint="$LAZARUS_OTEL_ENDPOINT")
    # deep stacks for Flight Recorder (free unless a recording runs): application frames sit under WildFly's many
    LAUNCH_JBOSS_IN_BACKGROUND=1 JBOSS_PIDFILE="$pidfile" \
        PREPEND_JAVA_OPTS="${PREPEND_JAVA_OPTS:-} -XX:FlightRecorderOptions:stackdepth=256" \
        nohup "$WILDFLY_HOME/bin/standalone.sh" -c standalone-full.xml -b 127.0.0.1 \
        -Djboss.server.base.dir="$base" -Djboss.socket.binding.port-offset="$offset" -Dlazarus.broker.port="$port" \
        "${tracing[@]}" ${naming[@]+"${naming[@]}"} > "$base.out" 2>&1 &
    wait_for_port $((9990 + offset)) "WildFly management" 120
}

stop_pid_file() { # pid file of a WildFly of base dir <pid file without .pid>: stop it, kill it after 30 s
    if [ -f "$1" ]; then
        local pid base; pid=$(cat "$1"); base=${1%.pid}
        # only the server of that base directory: a stale file (after a reboot) may name any process by now
        if ! tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "jboss.server.base.dir=$base"; then
            rm -f "$1"; return 0
        fi
        if kill "$pid" 2>/dev/null; then
            for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
            kill -9 "$pid" 2>/dev/null || true
        fi
        rm -f "$1"
    fi
}

wildfly_stop() {
    local pidfile
    for pidfile in "$STACK_DIR/wildfly.pid" "$STACK_DIR"/node-[0-9]*.pid; do
        stop_pid_file "$pidfile"
    done
}

# deploy_war [base dir]
deploy_war() {
    local deployments="${1:-$STACK_DIR/wildfly}/deployments"
    # copied aside, then moved in at once: the deployment scanner must never see a half-written archive (it
    # deployed that, then "replaced" it moments later with the whole one, while clients were already calling)
    cp "$WAR" "$deployments/../lazarus.war.copying"
    mv "$deployments/../lazarus.war.copying" "$deployments/lazarus.war"
    for _ in $(seq 1 480); do
        [ -f "$deployments/lazarus.war.deployed" ] && { log "Lazarus deployed"; return 0; }
        [ -f "$deployments/lazarus.war.failed" ] && { log "Deployment failed:"; cat "$deployments/lazarus.war.failed"; return 1; }
        sleep 0.25
    done
    log "Lazarus was not deployed within 120 s, see $deployments/../log/server.log"; return 1
}

broker_kill() {
    local pidfile="$STACK_DIR/broker/data/artemis.pid"
    [ -f "$pidfile" ] || { log "no broker pid file at $pidfile"; return 1; }
    local pid; pid=$(cat "$pidfile")
    if ! tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "artemis.instance=$(cd "$STACK_DIR/broker" && pwd -P)"; then
        log "pid $pid is not this stack's broker (stale pid file)"; rm -f "$pidfile"; return 1
    fi
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    rm -f "$pidfile"
    log "Artemis broker (pid $pid) killed with SIGKILL"
}

database() {
    case "${LAZARUS_DB:-embedded}" in
        embedded | postgresql) echo "${LAZARUS_DB:-embedded}" ;;
        *) log "unknown database '${LAZARUS_DB}': embedded (the default) or postgresql (H2 is no longer offered, see benchmarks.md)" >&2
           exit 2 ;;
    esac
}

# The embedded PostgreSQL runs as the calling user. PostgreSQL refuses to run as root, so as root (a CI
# container) it runs as "nobody", from binaries and a data directory under /tmp: that user may not be able
# to reach a checkout under /root. Every command then names the /tmp directory itself, never a path through
# the checkout.
as_db_user() {
    if [ "$(id -u)" = 0 ]; then setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; else "$@"; fi
}

# where the build put the binaries' archive (the pom sets PG_DIR; the drills' calls rely on the default)
pg_dir() { echo "${PG_DIR:-$repo/target/servers/postgres}"; }
embedded_pg_home() {
    if [ "$(id -u)" = 0 ]; then echo "/tmp/lazarus-pgsql-$(cat "$(pg_dir)"/postgres-*.txz 2>/dev/null | cksum | cut -d' ' -f1)"
    else echo "$(pg_dir)/pgsql"; fi
}
# the stack's data directory (its log is postgres.log inside it), as recorded when it was created
pg_data() {
    if [ -f "$STACK_DIR/postgres/datadir" ]; then cat "$STACK_DIR/postgres/datadir"
    elif [ "$(id -u)" = 0 ]; then echo "/tmp/lazarus-pgdata-$(echo "$STACK_DIR" | md5sum | cut -c1-12)"
    else echo "$STACK_DIR/postgres/data"; fi
}
# the port the stack's PostgreSQL was set up on (the pom sets DB_PORT for a new stack)
db_port() { echo "${DB_PORT:-$(cat "$STACK_DIR/postgres/port" 2>/dev/null || echo 5433)}"; }

embedded_pg_up() {
    local home; home=$(embedded_pg_home)
    if [ ! -x "$home/bin/postgres" ]; then
        local archive; archive=$(ls "$(pg_dir)"/postgres-*.txz 2>/dev/null | head -1 || true)
        [ -n "$archive" ] || { log "no PostgreSQL binaries in $(pg_dir): build with mvn first"; return 1; }
        # unpacked aside and moved into place in one step: a stack starting at the same time never sees half of it
        local unpacking; unpacking=$(mktemp -d "$home.XXXXXX")
        tar -xJf "$archive" -C "$unpacking" || { log "could not unpack $archive (is xz installed?)"; rm -rf "$unpacking"; return 1; }
        chmod 755 "$unpacking"
        mv -T "$unpacking" "$home" 2>/dev/null || rm -rf "$unpacking"
    fi
    local data; data=$(pg_data)
    mkdir -p "$STACK_DIR/postgres"
    db_port > "$STACK_DIR/postgres/port"
    echo "$data" > "$STACK_DIR/postgres/datadir"
    rm -rf "$data" && mkdir -p "$data" && chmod 700 "$data"
    if [ "$(id -u)" = 0 ]; then chown nobody: "$data"; fi
    local password; password=$(as_db_user mktemp)
    echo lazarus > "$password"   # the documented local-only password, as for the other local stacks
    as_db_user "$home/bin/initdb" -D "$data" -U lazarus --pwfile="$password" --auth-host=scram-sha-256 \
        --auth-local=trust -E UTF8 --locale=C > "$STACK_DIR/postgres-init.log" 2>&1 \
        || { log "initdb failed, see $STACK_DIR/postgres-init.log"; cat "$STACK_DIR/postgres-init.log"; return 1; }
    rm -f "$password"
    echo "CREATE DATABASE lazarus" | as_db_user "$home/bin/postgres" --single -D "$data" postgres >> "$STACK_DIR/postgres-init.log" 2>&1 \
        || { log "could not create the database, see $STACK_DIR/postgres-init.log"; return 1; }
    embedded_pg_start
}

embedded_pg_start() {
    # XA (prepared transactions) is how a step's database work commits together with its JMS messages;
    # TCP on 127.0.0.1 only, no Unix socket (its path could be too long in a deep checkout); connections for
    # two nodes' pools (64 each at most)
    local data; data=$(pg_data)
    as_db_user "$(embedded_pg_home)/bin/pg_ctl" -D "$data" -l "$data/postgres.log" -w -t 60 \
        -o "-p $(db_port) -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_prepared_transactions=128 -c max_connections=200" start > /dev/null \
        || { log "PostgreSQL did not start, see $data/postgres.log"; tail -n 20 "$data/postgres.log"; return 1; }
    log "PostgreSQL (embedded) on 127.0.0.1:$(db_port), data in $data"
}

embedded_pg_stop() {
    local data; data=$(pg_data)
    if [ -f "$data/postmaster.pid" ]; then
        as_db_user "$(embedded_pg_home)/bin/pg_ctl" -D "$data" -m fast -w stop > /dev/null 2>&1 || true
    fi
}

# The stack's database, stopped and started again (database drill): the embedded PostgreSQL, or the
# machine's cluster (the one .ci/postgres.sh prepares) under a stack on it.
postgres_ctl() { # stop|start
    case "$(cat "$STACK_DIR/database" 2>/dev/null)" in
        embedded)
            if [ "$1" = stop ]; then
                as_db_user "$(embedded_pg_home)/bin/pg_ctl" -D "$(pg_data)" -m fast -w stop > /dev/null
                log "PostgreSQL (embedded) stopped"
            else
                embedded_pg_start
            fi
            ;;
        postgresql)
            local version; version=$(ls /etc/postgresql | sort -n | tail -1)
            if [ "$1" = stop ]; then
                pg_ctlcluster "$version" main stop -m fast
                log "PostgreSQL $version stopped"
            else
                pg_ctlcluster "$version" main start
                for _ in $(seq 1 120); do su postgres -c "pg_isready -q" && break; sleep 0.25; done
                log "PostgreSQL $version started"
            fi
            ;;
        *)
            log "the stack does not run on PostgreSQL"; return 1 ;;
    esac
}

db_up() {
    local db; db=$(database) || exit 2
    if [ "$db" = embedded ]; then embedded_pg_up; fi
}

# The stand-in document service (wildfly-config/DocumentService.java): the remote server the demo's fetch step
# calls, a process of its own so that an outage is a refused connection, as it would be for a real dependency.
documents_port() { echo "${DOCUMENTS_PORT:-$(cat "$STACK_DIR/documents.port" 2>/dev/null || echo 8090)}"; }

# the pid of this stack's document service, if it runs (a stale pid file, after a reboot, may name any process)
documents_pid() {
    local pid port
    pid=$(cat "$STACK_DIR/documents.pid" 2>/dev/null) || return 1
    port=$(cat "$STACK_DIR/documents.port" 2>/dev/null) || return 1
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "DocumentService $port " || return 1
    echo "$pid"
}

documents_start() {
    local pid port java="${JAVA_HOME:+$JAVA_HOME/bin/}java" javac="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
    if pid=$(documents_pid); then
        log "document service already running on 127.0.0.1:$(documents_port) (pid $pid)"; return 0
    fi
    port=$(documents_port)
    require_free_port "$port" "document service"
    mkdir -p "$STACK_DIR/documents"
    # compiled once (again when the source changes): it then starts in a fraction of a second, where the source
    # launcher (java DocumentService.java) would compile it at every start, on the cores the stack is using
    if [ ! -f "$STACK_DIR/documents/DocumentService.class" ] || [ "$here/DocumentService.java" -nt "$STACK_DIR/documents/DocumentService.class" ]; then
        "$javac" -d "$STACK_DIR/documents" "$here/DocumentService.java"
    fi
    echo "$port" > "$STACK_DIR/documents.port"
    # small: a few MB of heap, the client compiler only (it logs a line when it starts and one when it stops)
    nohup "$java" -Xmx32m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$STACK_DIR/documents" \
        DocumentService "$port" >> "$STACK_DIR/documents.log" 2>&1 &
    echo $! > "$STACK_DIR/documents.pid"
    wait_for_port "$port" "The document service" 30 || { tail -n 20 "$STACK_DIR/documents.log"; return 1; }
    log "document service on http://127.0.0.1:$port/documents?url=... (pid $(cat "$STACK_DIR/documents.pid"), log $STACK_DIR/documents.log)"
}

documents_stop() { # [quiet]: say nothing if none runs
    local pid
    if pid=$(documents_pid); then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 40); do documents_pid > /dev/null || break; sleep 0.25; done
        if documents_pid > /dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
        log "document service on 127.0.0.1:$(documents_port) (pid $pid) stopped: the demo's fetch step fails with a refused connection until it is back (stack.sh documents-start)"
    elif [ "${1:-}" != quiet ]; then
        log "no document service runs in $STACK_DIR (already stopped)"
    fi
    rm -f "$STACK_DIR/documents.pid"
}

# Demo runs: healthy ones, transient failures that recover, and poison ones that end as dead letters
# (two of them recover when requeued, the "cause fixed" case), plus one garbage message dropped straight
# into a step queue.
submit_demo_runs() {
    local api="http://127.0.0.1:8080/lazarus/api/runs" n=0
    start_run() {
        curl -sf -o /dev/null -u "operator:$OPERATOR_PASSWORD" -H 'Content-Type: application/json' \
            -d "{\"pipeline\":\"document-ingestion\",\"payload\":$1}" "$api" && n=$((n + 1))
    }
    for doc in annual-report press-release handbook changelog faq invoice-2026-11; do
        start_run "{\"url\":\"https://docs.example.org/$doc.html\"}"
    done
    start_run '{"url":"https://docs.example.org/flaky.html","failures":{"fetch":{"mode":"transient","succeedOnAttempt":3}}}'
    start_run '{"url":"https://docs.example.org/slow-index.html","failures":{"index":{"mode":"transient","succeedOnAttempt":2}}}'
    start_run '{"url":"https://docs.example.org/parser-outage.html","failures":{"parse":{"mode":"until-requeued"}}}'
    start_run '{"url":"https://docs.example.org/index-outage.html","failures":{"index":{"mode":"until-requeued"}}}'
    start_run '{"url":"https://docs.example.org/corrupt.pdf","failures":{"parse":{"mode":"always"}}}'
    start_run '{"url":"https://docs.example.org/unsupported.doc","failures":{"index":{"mode":"permanent"}}}'
    "$ARTEMIS_HOME/bin/artemis" producer --silent --url "tcp://127.0.0.1:$BROKER_PORT" \
        --user "$BROKER_USER" --password "$BROKER_PASSWORD" \
        --destination queue://lazarus.document-ingestion.fetch --message "this is not a step message" \
        --message-count 1 > /dev/null 2>&1 || log "could not drop the garbage demo message"
    log "Submitted $n demo runs and one garbage message; dead letters appear within a few seconds"
}

# The two-broker, two-node topology (see the usage above), fresh.
cluster_up() {
    wildfly_stop
    fresh_stack_dir
    db_up
    documents_start   # one service, both nodes call it
    local n other
    for n in 1 2; do
        other=$(( n == 1 ? 2 : 1 ))
        broker_up "$STACK_DIR/broker-$n" "${CLUSTER_BROKER_PORTS[n-1]}" "${CLUSTER_CONSOLE_PORTS[n-1]}" \
            --name "broker-$n" --clustered --cluster-user cluster --cluster-password "$CLUSTER_PASSWORD" \
            --staticCluster "tcp://127.0.0.1:${CLUSTER_BROKER_PORTS[other-1]}" --message-load-balancing ON_DEMAND
    done
    for n in 1 2; do
        wildfly_configure "$STACK_DIR/node-$n" cluster.cli
    done
    # one after the other: the first deployment migrates the schema and creates the timers
    for n in 1 2; do
        cluster_node_start "$n"
        deploy_war "$STACK_DIR/node-$n"
    done
}

cluster_node_start() { # n
    PREPEND_JAVA_OPTS="${PREPEND_JAVA_OPTS:-} -Dlazarus.brokers=broker-1,broker-2 -Dlazarus.broker.1.port=${CLUSTER_BROKER_PORTS[0]} -Dlazarus.broker.2.port=${CLUSTER_BROKER_PORTS[1]}" \
        wildfly_start "$STACK_DIR/node-$1" "${CLUSTER_BROKER_PORTS[$1-1]}" $(( 200 * ($1 - 1) )) "node-$1"
}

# hold_switch on|off: lazarus.hold.enabled on every running WildFly of the stack, through its management interface
# (the CLI signs in as the local user that runs it); "on" removes the property, so the default (true) applies
hold_switch() {
    local script="$STACK_DIR/hold.cli" pidfile base offset n switched=0
    if [ "$1" = off ]; then
        cat > "$script" <<CLI
if (outcome != success) of /system-property=lazarus.hold.enabled:read-resource
    /system-property=lazarus.hold.enabled:add(value=false)
else
    /system-property=lazarus.hold.enabled:write-attribute(name=value, value=false)
end-if
CLI
    else
        cat > "$script" <<CLI
if (outcome == success) of /system-property=lazarus.hold.enabled:read-resource
    /system-property=lazarus.hold.enabled:remove
end-if
CLI
    fi
    for pidfile in "$STACK_DIR/wildfly.pid" "$STACK_DIR"/node-[0-9]*.pid; do
        [ -f "$pidfile" ] || continue
        base=${pidfile%.pid}; offset=0
        case "$base" in *node-*) n=${base##*node-}; offset=$(( 200 * (n - 1) )) ;; esac
        "$WILDFLY_HOME/bin/jboss-cli.sh" --connect --controller="127.0.0.1:$((9990 + offset))" --file="$script" > "$STACK_DIR/hold.log" 2>&1 \
            || { log "could not switch the hold $1 on the WildFly on port $((9990 + offset)):"; cat "$STACK_DIR/hold.log"; return 1; }
        switched=$((switched + 1))
    done
    [ "$switched" -gt 0 ] || { log "no WildFly of $STACK_DIR runs"; return 1; }
    log "automatic hold switched $1 on $switched WildFly server(s); each reads it again within 10 s"
}

# A fresh stack with the WAR deployed: database, broker, configured WildFly (the demo's and the benchmark's).
stack_up() {
    wildfly_stop
    fresh_stack_dir
    db_up
    documents_start
    broker_up
    wildfly_configure
    wildfly_start
    deploy_war
}

case "${1:-}" in
    cluster-node-* | cluster-broker-*)
        case "${2:-}" in
            1 | 2) ;;
            *) log "$1 needs the node or broker number: 1 or 2"; exit 2 ;;
        esac
        ;;
esac

case "${1:-}" in
    it-up)
        fresh_stack_dir
        db_up
        documents_start
        broker_up
        wildfly_configure
        ;;
    it-down)
        documents_stop quiet
        broker_down
        embedded_pg_stop
        ;;
    demo-up)
        stack_up
        submit_demo_runs
        cat <<INFO

  Lazarus is running (local-only credentials, for this machine only):
    Admin page      http://127.0.0.1:8080/lazarus/        operator / $OPERATOR_PASSWORD  (or viewer / $VIEWER_PASSWORD)
    REST API        http://127.0.0.1:8080/lazarus/api/dead-letters   (same users, HTTP Basic)
    Artemis console http://127.0.0.1:$CONSOLE_PORT/console            $BROKER_USER / $BROKER_PASSWORD
    Metrics         http://127.0.0.1:9990/prometheus                 metrics / $METRICS_PASSWORD
    Logs            $STACK_DIR/wildfly/log/server.log, lazarus-events.log (JSON, a line per run change)
    Documents       http://127.0.0.1:$(documents_port)/documents?url=...  the stand-in server the fetch step calls; take it
                    down and back: bash wildfly-config/stack.sh documents-stop | documents-start
  Stop it with:     bash wildfly-config/stack.sh demo-down

INFO
        ;;
    bench-up)
        stack_up
        log "Stack up for the benchmark (database: $(database)), no demo runs"
        ;;
    demo-kill)
        if [ -f "$STACK_DIR/wildfly.pid" ]; then
            pid=$(cat "$STACK_DIR/wildfly.pid")
            kill -9 "$pid" 2>/dev/null || true
            for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
            rm -f "$STACK_DIR/wildfly.pid"
            log "WildFly (pid $pid) killed with SIGKILL"
        fi
        ;;
    demo-restart)
        wildfly_start
        log "WildFly started again with its state"
        ;;
    broker-kill)
        broker_kill
        ;;
    broker-restart)
        "$STACK_DIR/broker/bin/artemis-service" start > /dev/null
        wait_for_port "$BROKER_PORT" "Artemis" 60
        log "Artemis broker started again with its journal"
        ;;
    db-stop)
        postgres_ctl stop
        ;;
    db-start)
        postgres_ctl start
        ;;
    documents-stop)
        documents_stop
        ;;
    documents-start)
        documents_start
        ;;
    hold)
        case "${2:-}" in
            on | off) hold_switch "$2" ;;
            *) log "hold needs on or off"; exit 2 ;;
        esac
        ;;
    demo-down | cluster-down)
        wildfly_stop
        documents_stop quiet
        broker_down
        embedded_pg_stop
        log "Stopped"
        ;;
    cluster-up)
        cluster_up
        submit_demo_runs
        cat <<INFO

  Lazarus runs on two nodes and two clustered brokers (local-only credentials, for this machine only):
    Admin pages      http://127.0.0.1:8080/lazarus/  and  http://127.0.0.1:8280/lazarus/   operator / $OPERATOR_PASSWORD
    Artemis consoles http://127.0.0.1:8161/console   and  http://127.0.0.1:8162/console    $BROKER_USER / $BROKER_PASSWORD
    Logs             $STACK_DIR/node-1/log/server.log, $STACK_DIR/node-2/log/server.log
    Documents        http://127.0.0.1:$(documents_port)/documents?url=...  the stand-in server both nodes' fetch step calls;
                     take it down and back: STACK_DIR=target/cluster bash wildfly-config/stack.sh documents-stop | documents-start
  Stop it with:      bash wildfly-config/stack.sh cluster-down

INFO
        ;;
    cluster-node-kill)
        pid=$(cat "$STACK_DIR/node-$2.pid")
        kill -9 "$pid" 2>/dev/null || true
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        rm -f "$STACK_DIR/node-$2.pid"
        log "Node $2 (pid $pid) killed with SIGKILL"
        ;;
    cluster-node-stop)
        stop_pid_file "$STACK_DIR/node-$2.pid"
        log "Node $2 stopped"
        ;;
    cluster-node-start)
        cluster_node_start "$2"
        log "Node $2 started again with its state"
        ;;
    cluster-broker-stop)
        "$STACK_DIR/broker-$2/bin/artemis-service" stop > /dev/null
        log "Broker $2 stopped"
        ;;
    cluster-broker-start)
        "$STACK_DIR/broker-$2/bin/artemis-service" start > /dev/null
        wait_for_port "${CLUSTER_BROKER_PORTS[$2-1]}" "Artemis" 60
        log "Broker $2 started again with its journal"
        ;;
    prometheus-up)
        command -v prometheus > /dev/null || { echo "Prometheus is not installed: apt-get install prometheus (Debian's package)" >&2; exit 1; }
        dir="$repo/target/prometheus"
        mkdir -p "$dir/data"
        require_free_port 9090 "Prometheus"
        cat > "$dir/prometheus.yml" <<YAML
global: {scrape_interval: 5s, evaluation_interval: 5s}
rule_files: ["$repo/src/main/prometheus/lazarus-alerts.yml"]
scrape_configs:
  - job_name: lazarus
    metrics_path: /prometheus
    basic_auth: {username: metrics, password: $METRICS_PASSWORD}
    static_configs: [{targets: ["127.0.0.1:9990", "127.0.0.1:10190"]}]
YAML
        nohup prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
            --web.listen-address=127.0.0.1:9090 > "$dir/prometheus.log" 2>&1 &
        echo $! > "$dir/prometheus.pid"
        wait_for_port 9090 "Prometheus" 30
        log "Prometheus on http://127.0.0.1:9090 (alerts: /alerts), scraping 127.0.0.1:9990 and :10190 (cluster node 2)"
        ;;
    prometheus-down)
        pidfile="$repo/target/prometheus/prometheus.pid"
        if [ -f "$pidfile" ] && grep -q prometheus "/proc/$(cat "$pidfile")/cmdline" 2>/dev/null; then
            kill "$(cat "$pidfile")"
            log "Prometheus stopped"
        fi
        rm -f "$pidfile"
        ;;
    *)
        echo "usage: $0 it-up|it-down|demo-up|bench-up|demo-down|demo-kill|demo-restart|broker-kill|broker-restart|db-stop|db-start|documents-stop|documents-start|cluster-up|cluster-down|cluster-node-kill N|cluster-node-stop N|cluster-node-start N|cluster-broker-stop N|cluster-broker-start N|prometheus-up|prometheus-down" >&2; exit 2 ;;
esac
