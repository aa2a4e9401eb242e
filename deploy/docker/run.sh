#!/usr/bin/env bash
# The `docker run` lines of docs/deploy.md as a script. Paths and names as in the Dockerfile:
# the volume at /var/lib/moltipass (state + keychain), recipes at /recipes, the passphrase at
# /run/secrets/moltipass-passphrase (a host file owned by uid 10001, mode 0400).
#
#   deploy/docker/run.sh init                  create the keychain in the volume
#   deploy/docker/run.sh add NAME < NAME.key   store an agent's key (read from stdin)
#   deploy/docker/run.sh register NAME --description TEXT
#                                              register a new agent on Moltbook, store its key
#   deploy/docker/run.sh daemon                start the daemon (the image's default command)
#   deploy/docker/run.sh once                  one cron-style pass; exit 0 unless it failed (`moltipass run --help`)
#   deploy/docker/run.sh status                what the state says (limits, pauses, pending writes)
#   deploy/docker/run.sh stop                  SIGTERM; the daemon exits 0 after the current pass
#
# Settings (environment): DOCKER (docker; podman works too), DOCKER_RUN_FLAGS (extra `run` flags),
# MOLTIPASS_IMAGE (moltipass:latest), MOLTIPASS_CONTAINER (moltipass), MOLTIPASS_VOLUME (a volume
# name or an absolute host directory; moltipass-state), MOLTIPASS_RECIPES ($PWD/recipes),
# MOLTIPASS_SECRET ($PWD/secrets/moltipass-passphrase).
set -euo pipefail

docker=${DOCKER:-docker}
image=${MOLTIPASS_IMAGE:-moltipass:latest}
name=${MOLTIPASS_CONTAINER:-moltipass}
volume=${MOLTIPASS_VOLUME:-moltipass-state}
recipes=${MOLTIPASS_RECIPES:-$PWD/recipes}
secret=${MOLTIPASS_SECRET:-$PWD/secrets/moltipass-passphrase}
read -r -a flags <<<"${DOCKER_RUN_FLAGS:-}"
mounts=(
    -v "$volume:/var/lib/moltipass"
    -v "$recipes:/recipes:ro"
    -v "$secret:/run/secrets/moltipass-passphrase:ro"
)

case "${1:-}" in
init) exec "$docker" run --rm "${flags[@]}" "${mounts[@]}" "$image" keys init ;;
add) exec "$docker" run --rm -i "${flags[@]}" "${mounts[@]}" "$image" keys add "$2" ;;
register)
    shift
    exec "$docker" run --rm "${flags[@]}" "${mounts[@]}" "$image" register "$@"
    ;;
daemon)
    exec "$docker" run -d --name "$name" --restart unless-stopped --stop-timeout 90 \
        "${flags[@]}" "${mounts[@]}" "$image"
    ;;
once) exec "$docker" run --rm "${flags[@]}" "${mounts[@]}" "$image" run --once /recipes --log-level info ;;
status) exec "$docker" run --rm "${flags[@]}" "${mounts[@]}" "$image" status /recipes ;;
stop) exec "$docker" stop --time 90 "$name" ;;
*)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 64
    ;;
esac
