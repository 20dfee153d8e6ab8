// PCRE2 (Debian: libpcre2-dev) with 8-bit code units: Swift calls the `_8` functions directly.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
