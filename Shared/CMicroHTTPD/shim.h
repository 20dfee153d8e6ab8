#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
/* Swift does not import these macros (they contain a cast). */
static const ssize_t CMHD_READER_END_OF_STREAM = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t CMHD_READER_END_WITH_ERROR = MHD_CONTENT_READER_END_WITH_ERROR;
