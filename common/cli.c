#include "common/cli.h"

#include <stdio.h>

int cli_usage_err(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "quern %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see quern help %s)\n", cmd);
    return 2;
}

const char *cli_flag(char *const *argv, int optind, const char *value)
{
    /* A separate value is the argument before optind, its flag the one before. */
    if (value != NULL && optind >= 2 && argv[optind - 1] == value)
        return argv[optind - 2];
    return argv[optind - 1];
}
