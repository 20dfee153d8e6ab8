// glibc's malloc extensions (malloc_trim), which Glibc's module leaves out.
#include <malloc.h>
