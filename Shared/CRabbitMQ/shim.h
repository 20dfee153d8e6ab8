/* Debian 12 ships rabbitmq-c 0.11, whose headers sit at the top of /usr/include. */
#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <amqp_framing.h>

/* amqp_login() is C-variadic, which Swift cannot call. */
static inline amqp_rpc_reply_t swift_amqp_login_plain(amqp_connection_state_t c, const char *vhost,
        int channel_max, int frame_max, int heartbeat, const char *user, const char *pass) {
    return amqp_login(c, vhost, channel_max, frame_max, heartbeat, AMQP_SASL_METHOD_PLAIN, user, pass);
}
