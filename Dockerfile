# syntax=docker/dockerfile:1
# Moltipass container image. docs/deploy.md explains every line; scripts/container-check proves it.
#
#   docker build -t moltipass .        # compiles in the official Swift image (target `runtime`)
#   docker build --target runtime-prebuilt --build-context prebuilt=.build-release/release -t moltipass .
#                                       # packs a binary built on a Debian 12 host instead
#
# Runtime layout (the same names are used by deploy/):
#   /usr/local/bin/moltipass             ENTRYPOINT
#   /recipes                             recipes, read-only (`run /recipes` loads every *.yaml in it;
#                                        content queues go in subdirectories, e.g. /recipes/queues)
#   /var/lib/moltipass                   the one volume: state.sqlite and keychain, owned by 10001
#   /run/secrets/moltipass-passphrase    the keychain passphrase (a secret mount, mode 0400, owner 10001)

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# ---- build: release binary with the Swift standard library linked in statically ----
FROM ${SWIFT_IMAGE} AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcurl4-openssl-dev libyaml-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The whole package (.dockerignore keeps build folders and git data out): targets may live outside Sources.
COPY . .
RUN swift build -c release --static-swift-stdlib --product moltipass \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/moltipass" /out/moltipass

# ---- runtime-base: Debian slim with only the shared libraries the binary links ----
FROM ${RUNTIME_IMAGE} AS runtime-base
# Versions are not pinned on purpose: a rebuild picks up Debian's security updates.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates libcurl4 libyaml-0-2 libsqlite3-0 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 moltipass \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/moltipass --no-create-home \
        --shell /usr/sbin/nologin moltipass \
    && install -d -o 10001 -g 10001 -m 0700 /var/lib/moltipass \
    && install -d -m 0755 /recipes
ENV HOME=/var/lib/moltipass \
    MOLTIPASS_STATE=/var/lib/moltipass/state.sqlite \
    MOLTIPASS_KEYCHAIN=/var/lib/moltipass/keychain \
    MOLTIPASS_PASSPHRASE_FILE=/run/secrets/moltipass-passphrase
VOLUME ["/var/lib/moltipass"]
WORKDIR /var/lib/moltipass
USER 10001:10001
# The daemon handles SIGTERM itself as PID 1: the current pass finishes, leases are released, exit 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/moltipass"]
CMD ["run", "/recipes"]
# Unhealthy (exit 1, every reason in the check's output: docker inspect) when an operator must act: a key
# the server refuses, a wrong passphrase or a missing keychain entry, an unclaimed agent, a pause by the
# server or the engine (not `moltipass pause`), a dry content queue, an invalid recipe, a state that cannot
# be written, no engine tick for 15 minutes (the daemon ticks at least every 5). The daemon checks every key
# as it starts, so a broken setup is unhealthy within about 90 s of the start. Docker restarts nothing for
# it (docs/deploy.md, "Health").
HEALTHCHECK --interval=30s --timeout=15s --start-period=30s --retries=2 \
    CMD ["/usr/local/bin/moltipass", "status", "--health", "/recipes"]

# ---- runtime-prebuilt: the runtime with a binary from the build context `prebuilt` ----
FROM runtime-base AS runtime-prebuilt
# `prebuilt` is a named build context (--build-context), not a stage.
# hadolint ignore=DL3022
COPY --from=prebuilt moltipass /usr/local/bin/moltipass

# ---- runtime (default): the runtime with the binary from the build stage ----
FROM runtime-base AS runtime
COPY --from=build /out/moltipass /usr/local/bin/moltipass
