/* outprw — the pushes as Prometheus remote write; see outprw.h. */
#include "console/outprw.h"

#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "console/prom.h"
#include "proto/prw.pb-c.h"

/* Most labels a series of prom.c's text has, besides the extra ones. */
#define LABELS_MAX 8

static int by_name(const void *a, const void *b)
{
    const Prw__Label *x = *(Prw__Label *const *)a, *y = *(Prw__Label *const *)b;

    return strcmp(x->name, y->name);
}

/* Reads a quoted label value at *p (just past its opening quote),
 * unescaping it in place; *p ends past the closing quote. Returns the
 * value, or NULL when the text is not well formed. */
static char *quoted(char **p)
{
    char *r = *p, *w = *p, *start = *p;

    while (*r != '"') {
        if (*r == '\0')
            return NULL;
        if (*r == '\\' && r[1] != '\0') {
            r++;
            *w++ = *r == 'n' ? '\n' : *r;
            r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
    *p = r + 1;
    return start;
}

/* Reads one sample line into ts (labels from lab, nlab of them set);
 * 0, or -1 when the line is not one prom.c writes. */
static int parse_line(char *line, Prw__Label *lab, size_t *nlab, Prw__Sample *smp)
{
    char *p = line, *end;

    while (*p != '\0' && *p != '{' && *p != ' ')
        p++;
    lab[0].name = "__name__";
    lab[0].value = line;
    *nlab = 1;
    if (*p == '{') {
        *p++ = '\0';
        while (*p != '}') {
            char *eq = strchr(p, '=');
            if (eq == NULL || eq[1] != '"' || *nlab >= LABELS_MAX)
                return -1;
            *eq = '\0';
            lab[*nlab].name = p;
            p = eq + 2;
            lab[*nlab].value = quoted(&p);
            if (lab[*nlab].value == NULL)
                return -1;
            (*nlab)++;
            if (*p == ',')
                p++;
        }
        p++;
    }
    if (*p != ' ')
        return -1;
    *p++ = '\0';
    smp->value = strtod(p, &end);
    return end == p ? -1 : 0;
}

uint8_t *outprw_from_text(const char *text, const char *const *extra, size_t nextra, int64_t ts_ms,
                          size_t *len)
{
    Prw__WriteRequest wr = PRW__WRITE_REQUEST__INIT;
    size_t nlines = 1, nts = 0, per = LABELS_MAX + nextra;
    char *copy = xstrdup(text), *save = NULL, *line;
    Prw__TimeSeries *ts, **tsp;
    Prw__Label *lab, **labp;
    Prw__Sample *smp, **smpp;
    uint8_t *out = NULL;

    for (const char *s = text; *s != '\0'; s++)
        nlines += *s == '\n';
    ts = xcalloc(nlines, sizeof(*ts));
    tsp = xcalloc(nlines, sizeof(*tsp));
    lab = xcalloc(nlines * per, sizeof(*lab));
    labp = xcalloc(nlines * per, sizeof(*labp));
    smp = xcalloc(nlines, sizeof(*smp));
    smpp = xcalloc(nlines, sizeof(*smpp));
    for (line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        Prw__Label *l = lab + nts * per;
        size_t nl = 0;
        if (line[0] == '#')
            continue;
        for (size_t i = 0; i < per; i++)
            prw__label__init(&l[i]);
        prw__sample__init(&smp[nts]);
        if (parse_line(line, l, &nl, &smp[nts]) != 0)
            continue;
        for (size_t i = 0; i < nextra; i++) {
            l[nl].name = (char *)extra[2 * i];
            l[nl].value = (char *)extra[2 * i + 1];
            nl++;
        }
        for (size_t i = 0; i < nl; i++)
            labp[nts * per + i] = &l[i];
        qsort(labp + nts * per, nl, sizeof(*labp), by_name);
        smp[nts].timestamp = ts_ms;
        smpp[nts] = &smp[nts];
        prw__time_series__init(&ts[nts]);
        ts[nts].n_labels = nl;
        ts[nts].labels = labp + nts * per;
        ts[nts].n_samples = 1;
        ts[nts].samples = &smpp[nts];
        tsp[nts] = &ts[nts];
        nts++;
    }
    wr.n_timeseries = nts;
    wr.timeseries = tsp;
    *len = prw__write_request__get_packed_size(&wr);
    if (*len <= OUT_PUSH_MAX) {
        out = xmalloc(*len > 0 ? *len : 1);
        prw__write_request__pack(&wr, out);
    }
    xfree(smpp);
    xfree(smp);
    xfree(labp);
    xfree(lab);
    xfree(tsp);
    xfree(ts);
    xfree(copy);
    return out;
}

/* key as a label name, [a-zA-Z_][a-zA-Z0-9_]* (a receiver refuses a whole
 * request for one bad name): every other character becomes '_'. Owned. */
static char *label_name(const char *key)
{
    char *n = xmalloc(strlen(key) + 2), *w = n;

    if (*key >= '0' && *key <= '9')
        *w++ = '_';
    for (const char *r = key; *r != '\0'; r++)
        *w++ = (*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z') || (*r >= '0' && *r <= '9')
                   ? *r
                   : '_';
    *w = '\0';
    return n;
}

char *outprw_text(const out_input *in, size_t *len)
{
    prom_input pi = {0};

    pi.run = in->run;
    pi.steps = in->names;
    pi.a = in->a;
    pi.vus_max = in->vus_max;
    return prom_render(&pi, len);
}

uint8_t *outprw_encode(const char *text, const char *run, const props *tags, int64_t ts_ms,
                       size_t *len)
{
    const char **extra;
    char **keys; /* owned: the tags' keys as label names */
    size_t ntags = tags != NULL ? props_count(tags) : 0, nextra = 0, plen, clen;
    uint8_t *pb, *out;

    extra = xcalloc(2 * (ntags + 1), sizeof(*extra));
    keys = xcalloc(ntags + 1, sizeof(*keys));
    extra[2 * nextra] = "name";
    extra[2 * nextra++ + 1] = run;
    for (size_t i = 0; i < ntags; i++) {
        const char *k = props_key(tags, i);
        /* a tag never hides a label of quern's own */
        if (strcmp(k, "name") == 0 || strcmp(k, "run") == 0 || strcmp(k, "step") == 0 ||
            strcmp(k, "kind") == 0 || strcmp(k, "le") == 0 || strcmp(k, "state") == 0 ||
            strcmp(k, "agent") == 0 || strcmp(k, "worker") == 0 || strcmp(k, "role") == 0 ||
            strcmp(k, "expr") == 0 || strncmp(k, "__", 2) == 0)
            continue;
        keys[i] = label_name(k);
        extra[2 * nextra] = keys[i];
        extra[2 * nextra++ + 1] = props_value(tags, i);
    }
    pb = outprw_from_text(text, extra, nextra, ts_ms, &plen);
    xfree(extra);
    for (size_t i = 0; i < ntags; i++)
        xfree(keys[i]);
    xfree(keys);
    if (pb == NULL)
        return NULL;
    clen = snappy_max_compressed_length(plen);
    out = xmalloc(clen);
    if (snappy_compress((const char *)pb, plen, (char *)out, &clen) != SNAPPY_OK ||
        clen > OUT_PUSH_MAX) {
        xfree(out);
        out = NULL;
    }
    xfree(pb);
    *len = clen;
    return out;
}

uint8_t *outprw_render(const out_input *in, size_t *len)
{
    size_t tlen;
    char *text = outprw_text(in, &tlen);
    uint8_t *out;

    if (text == NULL)
        return NULL;
    out = outprw_encode(text, in->run, in->tags, in->now_ns / 1000000, len);
    xfree(text);
    return out;
}
