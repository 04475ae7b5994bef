/* monitor_host — a monitored host's resources from two scrapes; see monitor_host.h. */
#include "console/monitor_host.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bits of monitor_host_scrape.has. */
#define HAS_CPU 1u
#define HAS_LOAD 2u
#define HAS_MEMT 4u
#define HAS_MEMA 8u
#define HAS_NET 16u

static const char *const names[MONITOR_HOST_FIXED] = {
    "cpu_user", "cpu_system",     "cpu_iowait",         "cpu_steal",          "cpu_busy",
    "load1",    "mem_used_bytes", "net_rx_bytes_per_s", "net_tx_bytes_per_s", "disk_busy"};

/* The modes followed, in monitor_host_scrape.cpu_mode's order. */
static const char *const modes[5] = {"user", "system", "iowait", "steal", "idle"};

const char *monitor_host_name(enum monitor_host_metric i)
{
    return (unsigned)i < MONITOR_HOST_FIXED ? names[i] : "";
}

void monitor_host_scrape_init(monitor_host_scrape *s, const monitor_expo_sel *sels, size_t nsel)
{
    memset(s, 0, sizeof(*s));
    s->sels = sels;
    s->nsel = nsel < MONITOR_HOST_SELS_MAX ? nsel : MONITOR_HOST_SELS_MAX;
}

static void add_disk(monitor_host_scrape *s, const char *dev, double v)
{
    size_t i;

    if (dev == NULL)
        dev = "";
    for (i = 0; i < s->ndisks; i++)
        if (strcmp(s->disk[i], dev) == 0)
            break;
    if (i == s->ndisks) {
        if (s->ndisks == MONITOR_HOST_DISKS_MAX)
            return;
        snprintf(s->disk[i], sizeof(s->disk[i]), "%s", dev);
        s->disk_io[i] = 0;
        s->ndisks++;
    }
    s->disk_io[i] += v;
}

void monitor_host_add(void *ud, const monitor_expo_sample *x)
{
    monitor_host_scrape *s = ud;
    const char *n = x->name;

    if (!isfinite(x->value))
        return;
    if (strcmp(n, "node_cpu_seconds_total") == 0) {
        const char *mode = monitor_expo_label_get(x, "mode");
        s->cpu_all += x->value;
        s->has |= HAS_CPU;
        for (size_t i = 0; mode != NULL && i < 5; i++)
            if (strcmp(mode, modes[i]) == 0)
                s->cpu_mode[i] += x->value;
    } else if (strcmp(n, "node_load1") == 0) {
        s->load1 = x->value;
        s->has |= HAS_LOAD;
    } else if (strcmp(n, "node_memory_MemTotal_bytes") == 0) {
        s->mem_total = x->value;
        s->has |= HAS_MEMT;
    } else if (strcmp(n, "node_memory_MemAvailable_bytes") == 0) {
        s->mem_avail = x->value;
        s->has |= HAS_MEMA;
    } else if (strcmp(n, "node_network_receive_bytes_total") == 0 ||
               strcmp(n, "node_network_transmit_bytes_total") == 0) {
        const char *dev = monitor_expo_label_get(x, "device");
        if (dev != NULL && strcmp(dev, "lo") != 0) {
            if (n[13] == 'r')
                s->rx += x->value;
            else
                s->tx += x->value;
            s->has |= HAS_NET;
        }
    } else if (strcmp(n, "node_disk_io_time_seconds_total") == 0) {
        add_disk(s, monitor_expo_label_get(x, "device"), x->value);
    }
    for (size_t i = 0; i < s->nsel; i++)
        if (monitor_expo_sel_match(&s->sels[i], x)) {
            s->sel[i] += x->value;
            s->sel_seen[i] = 1;
        }
}

/* The rate of a counter from a to b over dt, NAN when it went back or when
 * it is not a finite number (counters near DBL_MAX overflow). */
static double rate(double a, double b, double dt)
{
    double r = b >= a && dt > 0 ? (b - a) / dt : NAN;
    return isfinite(r) ? r : NAN;
}

static int is_counter(const char *name)
{
    size_t n = strlen(name);
    return n >= 6 && strcmp(name + n - 6, "_total") == 0;
}

void monitor_host_derive(const monitor_host_scrape *a, const monitor_host_scrape *b, double dt_s,
                         double *out)
{
    double all = b->cpu_all - a->cpu_all;

    for (size_t i = 0; i < MONITOR_HOST_FIXED + b->nsel; i++)
        out[i] = NAN;
    if ((a->has & b->has & HAS_CPU) && all > 0 && isfinite(all)) {
        double d[5];
        int back = 0;
        for (int i = 0; i < 5; i++) {
            d[i] = b->cpu_mode[i] - a->cpu_mode[i];
            back |= d[i] < 0;
        }
        if (!back) {
            for (int i = 0; i < 4; i++)
                out[MONITOR_HOST_CPU_USER + i] = d[i] / all;
            out[MONITOR_HOST_CPU_BUSY] = 1.0 - (d[4] + d[2]) / all;
            if (out[MONITOR_HOST_CPU_BUSY] < 0)
                out[MONITOR_HOST_CPU_BUSY] = 0;
        }
    }
    if (b->has & HAS_LOAD)
        out[MONITOR_HOST_LOAD1] = b->load1;
    if ((b->has & HAS_MEMT) && (b->has & HAS_MEMA))
        out[MONITOR_HOST_MEM_USED] = b->mem_total - b->mem_avail;
    if (a->has & b->has & HAS_NET) {
        out[MONITOR_HOST_NET_RX] = rate(a->rx, b->rx, dt_s);
        out[MONITOR_HOST_NET_TX] = rate(a->tx, b->tx, dt_s);
    }
    for (size_t j = 0; j < b->ndisks; j++)
        for (size_t i = 0; i < a->ndisks; i++)
            if (strcmp(a->disk[i], b->disk[j]) == 0) {
                double r = rate(a->disk_io[i], b->disk_io[j], dt_s);
                if (isfinite(r) &&
                    (isnan(out[MONITOR_HOST_DISK_BUSY]) || r > out[MONITOR_HOST_DISK_BUSY]))
                    out[MONITOR_HOST_DISK_BUSY] = r;
            }
    for (size_t i = 0; i < b->nsel; i++) {
        if (!b->sel_seen[i])
            continue;
        if (!is_counter(b->sels[i].name))
            out[MONITOR_HOST_FIXED + i] = b->sel[i];
        else if (i < a->nsel && a->sel_seen[i])
            out[MONITOR_HOST_FIXED + i] = rate(a->sel[i], b->sel[i], dt_s);
    }
    /* Sums and differences of values near DBL_MAX overflow: such a figure
     * is none, not an infinity stored and charted. */
    for (size_t i = 0; i < MONITOR_HOST_FIXED + b->nsel; i++)
        if (!isfinite(out[i]))
            out[i] = NAN;
}
