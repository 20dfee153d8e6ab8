# PostgreSQL for deploy/compose-test only: Debian's package on the locally made base image, since no registry
# can be reached there. Users run the official postgres image (docker-compose.yml); this one behaves the same for
# what the compose file uses: POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, PGDATA, the scripts in
# /docker-entrypoint-initdb.d on first start, and a command that starts with "postgres".
ARG BASE_IMAGE=parse-compose-base:bookworm
FROM ${BASE_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive && apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
RUN mkdir -p "$PGDATA" /docker-entrypoint-initdb.d && chown -R postgres:postgres /var/lib/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
