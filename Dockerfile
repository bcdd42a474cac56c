# evalgate as a GitHub container action.
#
# Build stage: a static binary (CGO_ENABLED=0), so the final image needs no Go toolchain.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/evalgate ./cmd/evalgate

# Final stage: agents, workspace hooks and code-graders need a shell and git (workspace diffs
# are git diffs), and most of AgentV's examples are Python or Node scripts: setup-python and
# setup-node on the host do not reach a container action, so the image brings Python 3 and
# Node with npm (Debian's). HTTPS calls need CA certificates. No WORKDIR: the runner mounts the
# workspace at /github/workspace and starts the container there. Runs as root, as container
# actions expect (the mounted workspace and file-command files belong to the runner's user).
# To add an agent's own tools, build FROM this image (see the README).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git python3 python3-venv python3-pip nodejs npm \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'
COPY --from=build /out/evalgate /usr/local/bin/evalgate
ENTRYPOINT ["/usr/local/bin/evalgate", "action"]
