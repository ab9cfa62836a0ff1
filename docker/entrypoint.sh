#!/usr/bin/env bash
# Starts a Lazarus node in a container. The users and every credential come from the environment at start
# (docker/compose.yaml, docker/.env.example); the image holds none of them.
#
#   LAZARUS_OPERATOR_PASSWORD, LAZARUS_VIEWER_PASSWORD   the admin page's and the API's users (required);
#                                                         LAZARUS_OPERATOR_USER / LAZARUS_VIEWER_USER rename them
#   LAZARUS_NODE_NAME                                     this node's name, unique in the cluster (default: host name)
#   LAZARUS_DB_HOST, _PORT, _NAME, _USER, _PASSWORD       the database (required: _HOST, _USER, _PASSWORD)
#   LAZARUS_BROKER_HOST, _PORT, _USER, _PASSWORD          the node's broker (required: _HOST, _USER, _PASSWORD)
# (wildfly-config/*.cli read these when the server starts: ${lazarus.db.user,env.LAZARUS_DB_USER:...} and so on)
#   LAZARUS_BROKERS, LAZARUS_BROKER_1_HOST, _1_PORT, LAZARUS_BROKER_2_HOST, _2_PORT
#                                                         every broker of the cluster (wildfly-config/cluster.cli; required)
#   arguments                                             passed on to standalone.sh (-Dlazarus.sweep.stuck-after=PT10M ...)
set -euo pipefail

: "${LAZARUS_OPERATOR_PASSWORD:?set LAZARUS_OPERATOR_PASSWORD (the operator user's password)}"
: "${LAZARUS_VIEWER_PASSWORD:?set LAZARUS_VIEWER_PASSWORD (the viewer user's password)}"
: "${LAZARUS_METRICS_PASSWORD:?set LAZARUS_METRICS_PASSWORD (the password Prometheus scrapes /prometheus with, user metrics)}"
for required in LAZARUS_DB_HOST LAZARUS_DB_USER LAZARUS_DB_PASSWORD LAZARUS_BROKER_HOST LAZARUS_BROKER_USER LAZARUS_BROKER_PASSWORD \
        LAZARUS_BROKERS LAZARUS_BROKER_1_HOST LAZARUS_BROKER_2_HOST; do
    # the configuration's defaults are the local stacks' (127.0.0.1, the documented local passwords): never in a container
    [ -n "${!required:-}" ] || { echo "set $required (see docker/.env.example)" >&2; exit 2; }
done
node="${LAZARUS_NODE_NAME:-$(hostname)}"
config="$JBOSS_HOME/standalone/configuration"

# written at every start into the container's own files (hashed by add-user), never into the image
"$JBOSS_HOME/bin/add-user.sh" -sc "$config" -a -s -u "${LAZARUS_VIEWER_USER:-viewer}" -p "$LAZARUS_VIEWER_PASSWORD" -g viewer
"$JBOSS_HOME/bin/add-user.sh" -sc "$config" -a -s -u "${LAZARUS_OPERATOR_USER:-operator}" -p "$LAZARUS_OPERATOR_PASSWORD" -g viewer,operator
# a management user with no role (lazarus.cli): Prometheus's scrape login, which reads /prometheus and nothing else
"$JBOSS_HOME/bin/add-user.sh" -sc "$config" -s -u metrics -p "$LAZARUS_METRICS_PASSWORD"

# spans go to the collector at LAZARUS_OTEL_ENDPOINT (OTLP/gRPC, http://collector:4317); without one they are not
# exported (runs still get trace ids), instead of a failed export every few seconds
tracing=(-Dotel.traces.exporter=none)
[ -z "${LAZARUS_OTEL_ENDPOINT:-}" ] || tracing=()

# the node's name tells the nodes' timers and transaction logs apart (the transaction manager's node identifier
# must be unique per node, or one node's recovery would settle another's transactions)
exec "$JBOSS_HOME/bin/standalone.sh" -c standalone-full.xml -b 0.0.0.0 -bmanagement "${LAZARUS_MANAGEMENT_BIND:-0.0.0.0}" -Djboss.node.name="$node" -Djboss.tx.node.id="$node" ${tracing[@]+"${tracing[@]}"} "$@"
