#!/usr/bin/env bash
# Checks the container files without a Docker engine (none runs on the build machines): the compose file
# must be valid for docker-compose (Debian's package) with every variable of docker/.env.example set, and the
# Dockerfile must pass a linter (dockerfilelint, from the npm registry, installed under target/). CI runs it;
# so can you. It does not build the image or start the containers: see src/site/markdown/operators-guide.md, "Several nodes, and Docker".
set -euo pipefail
cd "$(dirname "$0")/.."

command -v docker-compose > /dev/null || { apt-get update -qq && apt-get install -y -qq docker-compose > /dev/null; }
env_file=$(mktemp)
trap 'rm -f "$env_file"' EXIT
sed 's/=$/=placeholder-for-the-check/' docker/.env.example > "$env_file"
docker-compose -f docker/compose.yaml --env-file "$env_file" config -q
echo "docker/compose.yaml: valid (docker-compose $(docker-compose version --short))"
# and without the credentials it must refuse, naming what is missing
if docker-compose -f docker/compose.yaml --env-file /dev/null config -q 2> /dev/null; then
    echo "docker/compose.yaml starts without credentials; every one must come from docker/.env" >&2; exit 1
fi

lint=target/lint
[ -x "$lint/node_modules/.bin/dockerfilelint" ] || npm install --silent --no-audit --no-fund --prefix "$lint" dockerfilelint@1.8.0 > /dev/null
"$lint/node_modules/.bin/dockerfilelint" docker/Dockerfile
bash -n docker/entrypoint.sh
