/* mhost — a monitored host's resources, from two scrapes of its exporter.
 *
 * What it is for: console/monitor.c scrapes each --monitor endpoint once a
 * second; each scrape's samples (console/expo.h) are summed here into an
 * mhost_scrape, and two scrapes in a row give the host's figures over the
 * time between them (mhost_derive), from prometheus-node-exporter's series:
 *   cpu_user, cpu_system, cpu_iowait, cpu_steal: the rate of
 *     node_cpu_seconds_total of that mode, summed over CPUs, over the rate
 *     of every mode of every CPU: a fraction of all the host's CPUs (0..1);
 *   cpu_busy: every mode but idle and iowait, the same way (a CPU waiting on
 *     I/O could run something else);
 *   load1: node_load1 (the run queue, a gauge);
 *   mem_used_bytes: node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes;
 *   net_rx_bytes_per_s, net_tx_bytes_per_s: the rates of
 *     node_network_receive_bytes_total and ..._transmit_bytes_total summed
 *     over the devices but "lo": loopback traffic is not the network (a
 *     host with no other device, a test on one machine, has no such series);
 *   disk_busy: the rate of node_disk_io_time_seconds_total of the busiest
 *     device (0..1: 1 is a device busy all the time);
 * and each --monitor-metric selector: the sum of the samples it matches,
 * as a rate per second when its name ends in "_total" (a counter).
 * A figure whose series is missing, or a counter that went back (the
 * exporter restarted), is NAN; so is one that is not a finite number (a
 * NaN or Inf sample is skipped, and sums, rates or differences of values
 * near DBL_MAX that overflow give none): no figure is ever +-Inf.
 *
 * Usage:
 *     mhost_scrape a, b;
 *     mhost_scrape_init(&a, sels, nsel);                // sels borrowed
 *     expo_parse(body, len, mhost_add, &a, err, sizeof(err));
 *     ... one second later, b the same way ...
 *     double v[MHOST_FIXED + MHOST_SELS_MAX];
 *     mhost_derive(&a, &b, dt_s, v);                     // v[MHOST_CPU_BUSY] ...
 */
#ifndef QUERN_MHOST_H
#define QUERN_MHOST_H

#include <stddef.h>

#include "console/expo.h"

/** The figures of a host, as indices into mhost_derive's values. */
enum mhost_metric {
    MHOST_CPU_USER,
    MHOST_CPU_SYSTEM,
    MHOST_CPU_IOWAIT,
    MHOST_CPU_STEAL,
    MHOST_CPU_BUSY,
    MHOST_LOAD1,
    MHOST_MEM_USED,
    MHOST_NET_RX,
    MHOST_NET_TX,
    MHOST_DISK_BUSY,
    MHOST_FIXED /**< the number of fixed figures; selectors' values follow */
};

/** Most --monitor-metric selectors. */
#define MHOST_SELS_MAX 32
/** Most disks followed per host (more are ignored). */
#define MHOST_DISKS_MAX 64

/** The name of figure i (< MHOST_FIXED), as stored: "cpu_busy", ... */
const char *mhost_name(enum mhost_metric i);

/** What one scrape of one host summed. */
typedef struct mhost_scrape {
    double cpu_mode[5]; /**< seconds over CPUs: user, system, iowait, steal, idle */
    double cpu_all;     /**< seconds over CPUs, every mode */
    double load1, mem_total, mem_avail, rx, tx;
    unsigned has; /**< bits: which of the series were seen (mhost.c) */
    size_t ndisks;
    char disk[MHOST_DISKS_MAX][32]; /**< device names */
    double disk_io[MHOST_DISKS_MAX];
    const expo_sel *sels; /**< borrowed: the selectors */
    size_t nsel;
    double sel[MHOST_SELS_MAX];
    unsigned char sel_seen[MHOST_SELS_MAX];
} mhost_scrape;

/** Empties s for a new scrape, with these selectors (borrowed; at most
 *  MHOST_SELS_MAX are used). */
void mhost_scrape_init(mhost_scrape *s, const expo_sel *sels, size_t nsel);

/** An expo_fn: adds one sample to the mhost_scrape ud. */
void mhost_add(void *ud, const expo_sample *x);

/** The figures over the dt_s seconds from scrape a to scrape b: out gets
 *  MHOST_FIXED + b->nsel values, each finite or NAN where there is none. Gauges (load1,
 *  memory, a selector not named *_total) are b's. */
void mhost_derive(const mhost_scrape *a, const mhost_scrape *b, double dt_s, double *out);

#endif
