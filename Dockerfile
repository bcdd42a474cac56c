# evalgate as a GitHub container action.
#
# Build stage: a static binary (CGO_ENABLED=0), so the final image needs no Go toolchain.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/evalgate ./cmd/evalgate

# Final stage: small, but agents and workspace hooks need a shell and git (workspace diffs are
# git diffs), and HTTPS calls need CA certificates. No WORKDIR: the runner mounts the workspace
# at /github/workspace and starts the container there. Runs as root, as container actions expect
# (the mounted workspace and file-command files belong to the runner's user).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'
COPY --from=build /out/evalgate /usr/local/bin/evalgate
ENTRYPOINT ["/usr/local/bin/evalgate", "action"]
