#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
/* Swift does not import these macros (they contain a cast). */
static const ssize_t CMHD_READER_END_OF_STREAM = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t CMHD_READER_END_WITH_ERROR = MHD_CONTENT_READER_END_WITH_ERROR;
/* MHD_get_daemon_info and MHD_get_connection_info are C-variadic, which Swift cannot call. */
static inline uint16_t CMHD_daemon_bound_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
static inline const struct sockaddr *CMHD_connection_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
static inline int CMHD_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
static inline void *CMHD_connection_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}
/* The bytes of the request head (request line, headers, the empty line); 0 before the head is complete. */
static inline size_t CMHD_connection_header_size(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}
/* How many headers, cookies and query arguments MHD parsed from the request head: each takes one record from
   the connection's memory, beside the head's bytes. */
static inline int CMHD_connection_entry_count(struct MHD_Connection *connection)
{
    return MHD_get_connection_values_n(connection,
        (enum MHD_ValueKind)(MHD_HEADER_KIND | MHD_COOKIE_KIND | MHD_GET_ARGUMENT_KIND | MHD_FOOTER_KIND), NULL, NULL);
}
/* MHD_upgrade_action is C-variadic too; closing is the one action an upgraded connection needs. */
static inline enum MHD_Result CMHD_upgrade_close(struct MHD_UpgradeResponseHandle *urh)
{
    return MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}
