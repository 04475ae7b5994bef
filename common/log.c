#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/redact.h"

static char log_role[64] = "quern";
static enum log_level log_min = LOG_INFO;
static void (*log_before)(void *ud);
static void *log_before_ud;
static int (*log_sink)(void *ud, enum log_level level, const char *line);
static void *log_sink_ud;
static int log_in_sink; /* a sink that logs must not loop */

void log_set_sink(int (*fn)(void *ud, enum log_level level, const char *line), void *ud)
{
    log_sink = fn;
    log_sink_ud = ud;
}

void log_raw(const char *line)
{
    if (log_before != NULL)
        log_before(log_before_ud);
    fprintf(stderr, "%s\n", line);
}

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
    char line[2048], raw[2048];
    va_list ap;
    int n;

    if (level < log_min)
        return;
    n = snprintf(line, sizeof(line), "%s: %s: ", log_role, names[level]);
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    redact_url(raw, line + n, sizeof(line) - (size_t)n); /* a URL's password never */
    if (log_sink != NULL && !log_in_sink) {
        int taken;
        log_in_sink = 1;
        taken = log_sink(log_sink_ud, level, line) == 0;
        log_in_sink = 0;
        if (taken)
            return;
    }
    log_raw(line);
}
