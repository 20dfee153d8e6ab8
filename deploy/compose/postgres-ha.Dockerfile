# PostgreSQL with pg_auto_failover from Debian's packages, for docker-compose.yml's `ha` profile: one image for the
# monitor and the nodes (PG_HA_ROLE), run by postgres-ha.sh. docs/database-failover.md says how it works.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive && apt-get update \
    && apt-get install -y --no-install-recommends postgresql-15 postgresql-15-auto-failover pg-auto-failover-cli \
    && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:$PATH
RUN mkdir -p /var/lib/postgresql/ha /var/run/postgresql && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY postgres-ha.sh /usr/local/bin/postgres-ha.sh
ENTRYPOINT ["postgres-ha.sh"]
