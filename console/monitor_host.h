/* monitor_host — a monitored host's resources, from two scrapes of its exporter.
 *
 * What it is for: console/monitor.c scrapes each --monitor endpoint once a
 * second; each scrape's samples (console/monitor_expo.h) are summed here into an
 * monitor_host_scrape, and two scrapes in a row give the host's figures over the
 * time between them (monitor_host_derive), from prometheus-node-exporter's series:
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
 *     monitor_host_scrape a, b;
 *     monitor_host_scrape_init(&a, sels, nsel);                // sels borrowed
 *     monitor_expo_parse(body, len, monitor_host_add, &a, err, sizeof(err));
 *     ... one second later, b the same way ...
 *     double v[MONITOR_HOST_FIXED + MONITOR_HOST_SELS_MAX];
 *     monitor_host_derive(&a, &b, dt_s, v);                     // v[MONITOR_HOST_CPU_BUSY] ...
 */
#ifndef QUERN_MONITOR_HOST_H
#define QUERN_MONITOR_HOST_H

#include <stddef.h>

#include "console/monitor_expo.h"

/** The figures of a host, as indices into monitor_host_derive's values. */
enum monitor_host_metric {
    MONITOR_HOST_CPU_USER,
    MONITOR_HOST_CPU_SYSTEM,
    MONITOR_HOST_CPU_IOWAIT,
    MONITOR_HOST_CPU_STEAL,
    MONITOR_HOST_CPU_BUSY,
    MONITOR_HOST_LOAD1,
    MONITOR_HOST_MEM_USED,
    MONITOR_HOST_NET_RX,
    MONITOR_HOST_NET_TX,
    MONITOR_HOST_DISK_BUSY,
    MONITOR_HOST_FIXED /**< the number of fixed figures; selectors' values follow */
};

/** Most --monitor-metric selectors. */
#define MONITOR_HOST_SELS_MAX 32
/** Most disks followed per host (more are ignored). */
#define MONITOR_HOST_DISKS_MAX 64

/** The name of figure i (< MONITOR_HOST_FIXED), as stored: "cpu_busy", ... */
const char *monitor_host_name(enum monitor_host_metric i);

/** What one scrape of one host summed. */
typedef struct monitor_host_scrape {
    double cpu_mode[5]; /**< seconds over CPUs: user, system, iowait, steal, idle */
    double cpu_all;     /**< seconds over CPUs, every mode */
    double load1, mem_total, mem_avail, rx, tx;
    unsigned has; /**< bits: which of the series were seen (monitor_host.c) */
    size_t ndisks;
    char disk[MONITOR_HOST_DISKS_MAX][32]; /**< device names */
    double disk_io[MONITOR_HOST_DISKS_MAX];
    const monitor_expo_sel *sels; /**< borrowed: the selectors */
    size_t nsel;
    double sel[MONITOR_HOST_SELS_MAX];
    unsigned char sel_seen[MONITOR_HOST_SELS_MAX];
} monitor_host_scrape;

/** Empties s for a new scrape, with these selectors (borrowed; at most
 *  MONITOR_HOST_SELS_MAX are used). */
void monitor_host_scrape_init(monitor_host_scrape *s, const monitor_expo_sel *sels, size_t nsel);

/** An monitor_expo_fn: adds one sample to the monitor_host_scrape ud. */
void monitor_host_add(void *ud, const monitor_expo_sample *x);

/** The figures over the dt_s seconds from scrape a to scrape b: out gets
 *  MONITOR_HOST_FIXED + b->nsel values, each finite or NAN where there is none. Gauges (load1,
 *  memory, a selector not named *_total) are b's. */
void monitor_host_derive(const monitor_host_scrape *a, const monitor_host_scrape *b, double dt_s,
                         double *out);

#endif
