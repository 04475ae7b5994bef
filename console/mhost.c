/* mhost — a monitored host's resources from two scrapes; see mhost.h. */
#include "console/mhost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bits of mhost_scrape.has. */
#define HAS_CPU 1u
#define HAS_LOAD 2u
#define HAS_MEMT 4u
#define HAS_MEMA 8u
#define HAS_NET 16u

static const char *const names[MHOST_FIXED] = {
    "cpu_user", "cpu_system",     "cpu_iowait",         "cpu_steal",          "cpu_busy",
    "load1",    "mem_used_bytes", "net_rx_bytes_per_s", "net_tx_bytes_per_s", "disk_busy"};

/* The modes followed, in mhost_scrape.cpu_mode's order. */
static const char *const modes[5] = {"user", "system", "iowait", "steal", "idle"};

const char *mhost_name(enum mhost_metric i)
{
    return (unsigned)i < MHOST_FIXED ? names[i] : "";
}

void mhost_scrape_init(mhost_scrape *s, const expo_sel *sels, size_t nsel)
{
    memset(s, 0, sizeof(*s));
    s->sels = sels;
    s->nsel = nsel < MHOST_SELS_MAX ? nsel : MHOST_SELS_MAX;
}

static void add_disk(mhost_scrape *s, const char *dev, double v)
{
    size_t i;

    if (dev == NULL)
        dev = "";
    for (i = 0; i < s->ndisks; i++)
        if (strcmp(s->disk[i], dev) == 0)
            break;
    if (i == s->ndisks) {
        if (s->ndisks == MHOST_DISKS_MAX)
            return;
        snprintf(s->disk[i], sizeof(s->disk[i]), "%s", dev);
        s->disk_io[i] = 0;
        s->ndisks++;
    }
    s->disk_io[i] += v;
}

void mhost_add(void *ud, const expo_sample *x)
{
    mhost_scrape *s = ud;
    const char *n = x->name;

    if (!isfinite(x->value))
        return;
    if (strcmp(n, "node_cpu_seconds_total") == 0) {
        const char *mode = expo_label_get(x, "mode");
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
        const char *dev = expo_label_get(x, "device");
        if (dev != NULL && strcmp(dev, "lo") != 0) {
            if (n[13] == 'r')
                s->rx += x->value;
            else
                s->tx += x->value;
            s->has |= HAS_NET;
        }
    } else if (strcmp(n, "node_disk_io_time_seconds_total") == 0) {
        add_disk(s, expo_label_get(x, "device"), x->value);
    }
    for (size_t i = 0; i < s->nsel; i++)
        if (expo_sel_match(&s->sels[i], x)) {
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

void mhost_derive(const mhost_scrape *a, const mhost_scrape *b, double dt_s, double *out)
{
    double all = b->cpu_all - a->cpu_all;

    for (size_t i = 0; i < MHOST_FIXED + b->nsel; i++)
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
                out[MHOST_CPU_USER + i] = d[i] / all;
            out[MHOST_CPU_BUSY] = 1.0 - (d[4] + d[2]) / all;
            if (out[MHOST_CPU_BUSY] < 0)
                out[MHOST_CPU_BUSY] = 0;
        }
    }
    if (b->has & HAS_LOAD)
        out[MHOST_LOAD1] = b->load1;
    if ((b->has & HAS_MEMT) && (b->has & HAS_MEMA))
        out[MHOST_MEM_USED] = b->mem_total - b->mem_avail;
    if (a->has & b->has & HAS_NET) {
        out[MHOST_NET_RX] = rate(a->rx, b->rx, dt_s);
        out[MHOST_NET_TX] = rate(a->tx, b->tx, dt_s);
    }
    for (size_t j = 0; j < b->ndisks; j++)
        for (size_t i = 0; i < a->ndisks; i++)
            if (strcmp(a->disk[i], b->disk[j]) == 0) {
                double r = rate(a->disk_io[i], b->disk_io[j], dt_s);
                if (isfinite(r) && (isnan(out[MHOST_DISK_BUSY]) || r > out[MHOST_DISK_BUSY]))
                    out[MHOST_DISK_BUSY] = r;
            }
    for (size_t i = 0; i < b->nsel; i++) {
        if (!b->sel_seen[i])
            continue;
        if (!is_counter(b->sels[i].name))
            out[MHOST_FIXED + i] = b->sel[i];
        else if (i < a->nsel && a->sel_seen[i])
            out[MHOST_FIXED + i] = rate(a->sel[i], b->sel[i], dt_s);
    }
    /* Sums and differences of values near DBL_MAX overflow: such a figure
     * is none, not an infinity stored and charted. */
    for (size_t i = 0; i < MHOST_FIXED + b->nsel; i++)
        if (!isfinite(out[i]))
            out[i] = NAN;
}
