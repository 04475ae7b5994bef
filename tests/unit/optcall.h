/* optcall — an option parser called the way its unit tests call it: the
 * arguments copied from a NULL-ended list after the command's word, the
 * parser run with stderr caught in a temporary file, and the check that it
 * refused with one line naming the fault. Link tests/unit/optcall.c. */
#ifndef QUERN_TESTS_OPTCALL_H
#define QUERN_TESTS_OPTCALL_H

#include <stdarg.h>

#define OPTCALL_ARGS_MAX 16

/* One call: the arguments, what the parser returned and what it said. */
typedef struct optcall {
    char *argv[OPTCALL_ARGS_MAX + 1]; /* owned strings (optcall_free) */
    int argc;
    int rc;          /* what the parser returned */
    char said[2048]; /* what it wrote on stderr, cut to fit */
} optcall;

/* Zeroes c and fills its argv with word, then first and the strings of ap
 * up to a NULL, OPTCALL_ARGS_MAX in all at the most. */
void optcall_args(optcall *c, const char *word, const char *first, va_list ap);

/* Runs parse(arg) with stderr caught: its result in c->rc, what it wrote
 * in c->said. */
void optcall_run(optcall *c, int (*parse)(void *arg), void *arg);

/* Fails the calling test unless the parse failed (-1) with one line on
 * stderr holding want. */
void optcall_assert_refused(const optcall *c, const char *want);

/* Frees c's copies of the arguments. */
void optcall_free(optcall *c);

#endif
