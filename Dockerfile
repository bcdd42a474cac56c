# evalgate as a GitHub container action.
#
# One runtime, two ways to put the binary in it:
#   docker build .                        the last stage: evalgate compiled from this source
#                                         (what .ci/run builds; --build-arg VERSION=1.2.3 stamps it)
#   docker buildx build --target release  the released image: goreleaser's prebuilt binary for
#                                         each platform (see .goreleaser.yaml, docs/release.md)
# Both share the runtime stage, so the released image and a local build differ only in how the
# binary was compiled.

# Runtime: agents, workspace hooks and code-graders need a shell and git (workspace diffs are git
# diffs), and most of AgentV's examples are Python or Node scripts: setup-python and setup-node on
# the host do not reach a container action, so the image brings Python 3 and Node with npm
# (Debian's). HTTPS calls need CA certificates. No WORKDIR: the runner mounts the workspace at
# /github/workspace and starts the container there. Runs as root, as container actions expect
# (the mounted workspace and file-command files belong to the runner's user). User commands
# (agents, hooks, graders) run as uid 10001, evalgate-agent, with a HOME and TMPDIR evalgate makes
# for them (docs/security.md, "The isolation user"); the passwd entry is for tools that look the
# user up. To add an agent's own tools, build FROM this image (see the README).
FROM debian:bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git python3 python3-venv python3-pip nodejs npm \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*' \
 && groupadd --system --gid 10001 evalgate-agent \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin evalgate-agent
ENTRYPOINT ["/usr/local/bin/evalgate", "action"]

# Build from source: a static binary (CGO_ENABLED=0), so the runtime needs no Go toolchain.
# VERSION, COMMIT and DATE stamp `evalgate version`; left empty it prints "dev".
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION
ARG COMMIT
ARG DATE
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags="-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
    -o /out/evalgate ./cmd/evalgate

# The released image: goreleaser's build context holds its binaries as <os>/<arch>/evalgate.
# BuildKit and buildah skip this stage unless it is the --target.
FROM runtime AS release
ARG TARGETPLATFORM
COPY ${TARGETPLATFORM}/evalgate /usr/local/bin/evalgate

# Default target: the source build.
FROM runtime
COPY --from=build /out/evalgate /usr/local/bin/evalgate
