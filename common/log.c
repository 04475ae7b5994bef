#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char log_role[64] = "quern";
static enum log_level log_min = LOG_INFO;
static void (*log_before)(void *ud);
static void *log_before_ud;

void log_set_before(void (*fn)(void *ud), void *ud)
{
    log_before = fn;
    log_before_ud = ud;
}

void log_init(const char *role)
{
    snprintf(log_role, sizeof(log_role), "%s", role);
}

void log_set_level(enum log_level level)
{
    log_min = level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    static const char *names[] = {"debug", "info", "warning", "error"};
    char line[2048];
    va_list ap;
    int n;

    if (level < log_min)
        return;
    n = snprintf(line, sizeof(line), "%s: %s: ", log_role, names[level]);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    if (log_before != NULL)
        log_before(log_before_ud);
    /* One write per line so lines of concurrent processes do not interleave. */
    fprintf(stderr, "%s\n", line);
}
