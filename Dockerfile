# ConnectN in a container: a static binary on distroless, as a non-root user,
# with the database in the /data volume.
#
# Build: docker build -t connectn .              (or: docker compose build)
#        docker build --build-arg VERSION=v1.2.3 -t connectn .
# Run:   docker run -d --env-file .env -v connectn-data:/data connectn                  (gateway)
#        docker run -d --env-file .env -v connectn-data:/data -p 8080:8080 connectn serve
# See compose.yaml and docs/self-hosting.md.

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so that a code change does not download them again.
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/connectn ./cmd/connectn \
 && mkdir -p /out/data

# distroless/static: CA certificates, /etc/passwd with the nonroot user
# (uid 65532), no shell and no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/connectn /usr/local/bin/connectn
# The volume's mount point belongs to the user, so a new named volume does too.
COPY --from=build --chown=65532:65532 /out/data /data
ENV CONNECTN_DB=/data/connectn.db \
    CONNECTN_ADDR=:8080
VOLUME ["/data"]
WORKDIR /data
USER 65532:65532
# serve's POST /interactions, /healthz, /readyz and /metrics. Gateway mode
# serves /metrics on CONNECTN_METRICS_ADDR (127.0.0.1:9464 by default:
# inside the container only; set it to :9464 to scrape from outside).
EXPOSE 8080
# No shell in the image: the binary checks itself (GET /readyz of serve, or of
# gateway mode's CONNECTN_METRICS_ADDR). Exit 0 healthy, 1 unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/connectn", "health"]
ENTRYPOINT ["/usr/local/bin/connectn"]
CMD ["run"]
