/* monitor_expo — a bounded reader of Prometheus' text exposition format, the text a
 * `--monitor` endpoint (prometheus-node-exporter, a JVM's exporter) serves.
 *
 * What it is for: console/monitor.c scrapes endpoints it does not control,
 * so nothing in their answer is trusted: a line longer than MONITOR_EXPO_LINE_MAX,
 * a series with more than MONITOR_EXPO_LABELS_MAX labels, more than MONITOR_EXPO_SERIES_MAX
 * series, a NUL byte or any malformed sample is one error naming the line,
 * and the scrape is dropped. Comments (# HELP, # TYPE) and blank lines are
 * skipped; a sample's timestamp is read and ignored.
 *
 * Usage:
 *     static void on_sample(void *ud, const monitor_expo_sample *s) { ... s->name, s->value ... }
 *     if (monitor_expo_parse(body, len, on_sample, ud, err, sizeof(err)) != 0) ...  // "line 7:
 * ..."
 *
 * A selector (`--monitor-metric NAME{label="value",...}`) is read with
 * monitor_expo_sel_parse and matched against samples with monitor_expo_sel_match: a sample
 * matches when its name is NAME and it has every label of the selector with
 * the same value (other labels are free). */
#ifndef QUERN_MONITOR_EXPO_H
#define QUERN_MONITOR_EXPO_H

#include <stddef.h>

/** Longest line read, newline excluded. */
#define MONITOR_EXPO_LINE_MAX 4096
/** Most labels one series may have. */
#define MONITOR_EXPO_LABELS_MAX 32
/** Most samples one scrape may hold (node exporter serves about 1,000). */
#define MONITOR_EXPO_SERIES_MAX 50000
/** Most labels a selector may name, and the longest name or value in it. */
#define MONITOR_EXPO_SEL_LABELS 8
#define MONITOR_EXPO_SEL_TEXT 128

/** One label of a sample; both strings borrowed, valid during the callback. */
typedef struct monitor_expo_label {
    const char *name;  /**< borrowed */
    const char *value; /**< borrowed: unescaped (\\, \", \n) */
} monitor_expo_label;

/** One sample, as the callback sees it; everything borrowed, valid only
 *  during the call. */
typedef struct monitor_expo_sample {
    const char *name;                 /**< borrowed: the metric's name */
    const monitor_expo_label *labels; /**< borrowed: nlabels entries, in the line's order */
    size_t nlabels;
    double value; /**< may be NaN or +-Inf, as the format allows */
} monitor_expo_sample;

/** Called for each sample of the text, in order. */
typedef void (*monitor_expo_fn)(void *ud, const monitor_expo_sample *s);

/** Reads len bytes of text (no NUL needed), calling fn for every sample.
 *  0; or -1 at the first malformed line or limit passed, with err set to
 *  "line N: why" (fn has then seen the samples before it). */
int monitor_expo_parse(const char *text, size_t len, monitor_expo_fn fn, void *ud, char *err,
                       size_t errlen);

/** Returns the value of the label called name in s, NULL when absent. */
const char *monitor_expo_label_get(const monitor_expo_sample *s, const char *name);

/** A parsed selector: NAME and the labels it requires. */
typedef struct monitor_expo_sel {
    char name[MONITOR_EXPO_SEL_TEXT];
    size_t nlabels;
    char lname[MONITOR_EXPO_SEL_LABELS][MONITOR_EXPO_SEL_TEXT];
    char lvalue[MONITOR_EXPO_SEL_LABELS][MONITOR_EXPO_SEL_TEXT];
} monitor_expo_sel;

/** Reads text, NAME or NAME{label="value",...}, into sel. 0; or -1 with err. */
int monitor_expo_sel_parse(const char *text, monitor_expo_sel *sel, char *err, size_t errlen);

/** 1 when s has sel's name and every label of sel with its value, else 0. */
int monitor_expo_sel_match(const monitor_expo_sel *sel, const monitor_expo_sample *s);

#endif
