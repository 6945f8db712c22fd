# The fanorona binary in a small image, for a trainer and self-play workers that share a run on
# object storage (see the README, "Training across machines on object storage"):
#
#   docker build -t fanorona .
#   docker run --rm -e AWS_ACCESS_KEY_ID -e AWS_SECRET_ACCESS_KEY -e AWS_REGION \
#     fanorona selfplay --run-dir s3://my-bucket/runs/default
#
# The CPU build; for a trainer on an NVIDIA GPU build with `--build-arg FEATURES=cuda` on a
# CUDA base image of your choice.
FROM rust:1.95-bookworm AS build
ARG FEATURES=""
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p fanorona ${FEATURES:+--features $FEATURES} \
    && cp target/release/fanorona /usr/local/bin/fanorona

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 fanorona \
    && mkdir -p /app && chown fanorona /app
COPY --from=build /usr/local/bin/fanorona /usr/local/bin/fanorona
COPY --chown=fanorona configs /app/configs
COPY --chown=fanorona checkpoints /app/checkpoints
WORKDIR /app
USER fanorona
# The local working folder of a run on a store (downloaded checkpoints and shards, bounded).
ENV FANORONA_CACHE_DIR=/app/cache
ENTRYPOINT ["fanorona"]
CMD ["--help"]
