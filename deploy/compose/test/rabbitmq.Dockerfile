# RabbitMQ for deploy/compose-test only: Debian's package on the locally made base image, since no registry can
# be reached there. Users run the official rabbitmq image (docker-compose.yml). Like it, this one logs to the
# console, reads /etc/rabbitmq/conf.d and runs as the rabbitmq user with its data in /var/lib/rabbitmq.
ARG BASE_IMAGE=parse-compose-base:bookworm
FROM ${BASE_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive && apt-get update && apt-get install -y --no-install-recommends rabbitmq-server && rm -rf /var/lib/apt/lists/*
RUN mkdir -p /etc/rabbitmq/conf.d && : >/etc/rabbitmq/rabbitmq-env.conf && chown -R rabbitmq:rabbitmq /var/lib/rabbitmq
ENV HOME=/var/lib/rabbitmq RABBITMQ_LOGS=- RABBITMQ_CONFIG_FILES=/etc/rabbitmq/conf.d
USER rabbitmq
CMD ["/usr/lib/rabbitmq/bin/rabbitmq-server"]
