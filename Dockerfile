# syntax=docker/dockerfile:1
# Build: docker build -t connectn .
# Run:   docker run --env-file .env -v connectn-data:/data connectn          (gateway)
#        docker run --env-file .env -v connectn-data:/data -p 8080:8080 connectn serve

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/connectn ./cmd/connectn \
 && mkdir -p /out/data

# A static binary on distroless: no shell, no package manager, non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/connectn /usr/local/bin/connectn
COPY --from=build --chown=65532:65532 /out/data /data
ENV CONNECTN_DB=/data/connectn.db \
    CONNECTN_ADDR=:8080
VOLUME ["/data"]
WORKDIR /data
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/connectn"]
CMD ["run"]
