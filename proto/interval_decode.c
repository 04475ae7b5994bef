/* interval_decode — an Interval decoded without copying; see interval_decode.h. */
#include "proto/interval_decode.h"

#include <pthread.h>
#include <string.h>

#include "common/mem.h"

/* Wire types of the protobuf encoding. */
#define WT_VARINT 0
#define WT_I64 1
#define WT_LEN 2

#define ENVELOPE_INTERVAL 13
/* Interval's message fields. */
#define IV_STEPS 4
#define IV_SCENARIOS 5
#define IV_INJECTOR 14
/* StepInterval's list of SlowSample. */
#define STEP_SLOWEST 32

/* A bounded read position. */
struct rd {
    uint8_t *p, *end; /* borrowed: the bytes left, p up to end */
};

/* What the first pass counts, for the second's allocation. */
struct counts {
    size_t steps, scens, inj, slow, checks, metrics, strings;
};

/* Interval's lists of the script's checks and metrics (proto/interval_tally.h),
 * their numbers read from the descriptor. */
static uint32_t iv_checks, iv_metrics;

/* Where the second pass puts the next SlowSample and its pointer. */
struct slots {
    Quern__SlowSample *next; /* borrowed: in the decoded block */
    Quern__SlowSample **ptr; /* borrowed: in the decoded block */
};

/* Keys and most values are one byte: that first, then two or three bytes,
 * inline; longer ones in a loop on a local pointer (a console reads 50 steps
 * of every agent each second: a call and a position kept in memory per
 * varint showed up). */
static inline int get_varint(struct rd *r, uint64_t *out)
{
    const uint8_t *p = r->p;
    uint64_t v = 0;

    if (p < r->end && p[0] < 0x80) {
        *out = p[0];
        r->p = (uint8_t *)p + 1;
        return 0;
    }
    /* two and three bytes (counts, sums of a second in microseconds) */
    if (r->end - p >= 3 && (p[1] < 0x80 || p[2] < 0x80)) {
        v = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7;
        if (p[1] < 0x80) {
            r->p = (uint8_t *)p + 2;
        } else {
            v |= (uint64_t)p[2] << 14;
            r->p = (uint8_t *)p + 3;
        }
        *out = v;
        return 0;
    }
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        if (p >= r->end)
            return -1;
        b = *p++;
        if (shift == 63 && b > 1)
            return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            r->p = (uint8_t *)p;
            return 0;
        }
    }
    return -1;
}

/* Reads a field's key; -1 past the end or for field 0 or a field number
 * past 2^29 - 1. */
static inline int get_key(struct rd *r, uint32_t *field, unsigned *wt)
{
    uint64_t k;

    if (get_varint(r, &k) != 0 || (k >> 3) == 0 || (k >> 3) > 0x1fffffff)
        return -1;
    *field = (uint32_t)(k >> 3);
    *wt = (unsigned)(k & 7);
    return 0;
}

/* Reads a length-delimited field's bytes into *sub. */
static inline int get_len(struct rd *r, struct rd *sub)
{
    uint64_t n;

    if (get_varint(r, &n) != 0 || n > (uint64_t)(r->end - r->p))
        return -1;
    sub->p = r->p;
    sub->end = r->p + n;
    r->p += n;
    return 0;
}

/* The kinds of field a message of ours has. */
enum kind { K_NONE, K_U32, K_U64, K_I64, K_BOOL, K_BYTES, K_STRING, K_DOUBLE };

/* One field of a message: its kind and where it goes (offset in the struct). */
struct field {
    enum kind kind;
    size_t off;
};

/* A message's table: its fields by number, read from protobuf-c's own
 * descriptor so that a field added to quern.proto is read in place without
 * an edit here (a field missing from a hand-kept table sent every Interval
 * to the slow path). */
#define TAB_MAX 64
struct table {
    struct field f[TAB_MAX];
    size_t n; /**< highest field number + 1 */
};

static struct table step_tab, scen_tab, inj_tab, iv_tab, slow_tab, check_tab, metric_tab;
static pthread_once_t tabs_once = PTHREAD_ONCE_INIT;

/* Fills t from md: the plain scalars and bytes interval_decode reads; repeated,
 * optional (presence), oneof, enum, signed and message fields stay K_NONE
 * (left to protobuf-c, or read apart as the Interval's lists are). */
static void table_from(const ProtobufCMessageDescriptor *md, struct table *t)
{
    for (unsigned i = 0; i < md->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &md->fields[i];
        enum kind k;

        if (fd->id >= TAB_MAX || fd->label != PROTOBUF_C_LABEL_NONE ||
            (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
            continue;
        switch (fd->type) {
        case PROTOBUF_C_TYPE_UINT32:
            k = K_U32;
            break;
        case PROTOBUF_C_TYPE_UINT64:
            k = K_U64;
            break;
        case PROTOBUF_C_TYPE_INT64:
            k = K_I64;
            break;
        case PROTOBUF_C_TYPE_BOOL:
            k = K_BOOL;
            break;
        case PROTOBUF_C_TYPE_BYTES:
            k = K_BYTES;
            break;
        case PROTOBUF_C_TYPE_STRING:
            k = K_STRING;
            break;
        case PROTOBUF_C_TYPE_DOUBLE:
            k = K_DOUBLE;
            break;
        default:
            continue;
        }
        t->f[fd->id] = (struct field){k, fd->offset};
        if (fd->id + 1 > t->n)
            t->n = fd->id + 1;
    }
}

static void tables_init(void)
{
    table_from(&quern__step_interval__descriptor, &step_tab);
    table_from(&quern__scenario_count__descriptor, &scen_tab);
    table_from(&quern__injector_load__descriptor, &inj_tab);
    table_from(&quern__interval__descriptor, &iv_tab);
    table_from(&quern__slow_sample__descriptor, &slow_tab);
    table_from(&quern__check_count__descriptor, &check_tab);
    table_from(&quern__metric_sample__descriptor, &metric_tab);
    iv_checks =
        protobuf_c_message_descriptor_get_field_by_name(&quern__interval__descriptor, "checks")->id;
    iv_metrics =
        protobuf_c_message_descriptor_get_field_by_name(&quern__interval__descriptor, "metrics")
            ->id;
}

/* 1 when num is one of the Interval's lists of messages. */
static int iv_list(uint32_t num)
{
    return num == IV_STEPS || num == IV_SCENARIOS || num == IV_INJECTOR || num == iv_checks ||
           num == iv_metrics;
}

/* Reads one field of a table's message at r into msg (NULL: only checks it),
 * a string copied to *strings (advanced; NULL with msg NULL: only counted in
 * *nstr). 0, or -1 when the field is not one interval_decode reads as it came. */
static inline __attribute__((always_inline)) int read_field(struct rd *r, uint32_t num, unsigned wt,
                                                            const struct field *tab, size_t n,
                                                            void *msg, char **strings, size_t *nstr)
{
    const struct field *f = num < n ? &tab[num] : NULL;
    uint64_t v;
    struct rd sub;

    if (f == NULL || f->kind == K_NONE)
        return -1;
    if (f->kind == K_BYTES || f->kind == K_STRING) {
        if (wt != WT_LEN || get_len(r, &sub) != 0)
            return -1;
        if (f->kind == K_STRING) {
            size_t len = (size_t)(sub.end - sub.p);
            *nstr += len + 1;
            if (msg != NULL) {
                memcpy(*strings, sub.p, len);
                (*strings)[len] = '\0';
                *(char **)((char *)msg + f->off) = *strings;
                *strings += len + 1;
            }
        } else if (msg != NULL) {
            ProtobufCBinaryData *b = (ProtobufCBinaryData *)((char *)msg + f->off);
            b->len = (size_t)(sub.end - sub.p);
            b->data = b->len > 0 ? sub.p : NULL;
        }
        return 0;
    }
    if (f->kind == K_DOUBLE) {
        double d;
        if (wt != WT_I64 || r->end - r->p < 8)
            return -1;
        v = 0;
        for (int i = 7; i >= 0; i--)
            v = v << 8 | r->p[i]; /* little-endian on the wire */
        r->p += 8;
        memcpy(&d, &v, sizeof(d));
        if (msg != NULL)
            *(double *)((char *)msg + f->off) = d;
        return 0;
    }
    if (wt != WT_VARINT || get_varint(r, &v) != 0)
        return -1;
    /* what protobuf-c would read otherwise is not worth matching: leave it */
    if ((f->kind == K_U32 && v > UINT32_MAX) || (f->kind == K_BOOL && v > 1))
        return -1;
    if (msg == NULL)
        return 0;
    if (f->kind == K_U64)
        *(uint64_t *)((char *)msg + f->off) = v;
    else if (f->kind == K_I64)
        *(int64_t *)((char *)msg + f->off) = (int64_t)v;
    else if (f->kind == K_U32)
        *(uint32_t *)((char *)msg + f->off) = (uint32_t)v;
    else
        *(protobuf_c_boolean *)((char *)msg + f->off) = v != 0;
    return 0;
}

/* Reads a whole sub-message of a table (msg NULL: only checks and counts). */
static int read_msg(struct rd r, const struct field *tab, size_t n, void *msg, char **strings,
                    size_t *nstr)
{
    while (r.p < r.end) {
        uint32_t num;
        unsigned wt;
        if (get_key(&r, &num, &wt) != 0 || read_field(&r, num, wt, tab, n, msg, strings, nstr) != 0)
            return -1;
    }
    return 0;
}

/* Reads a StepInterval (m NULL: only checks), its SlowSamples into the
 * slots (one contiguous slice of pointers: they are inside this message). */
static int read_step(struct rd r, Quern__StepInterval *m, struct slots *sl, char **strings,
                     size_t *nstr)
{
    while (r.p < r.end) {
        uint32_t num;
        unsigned wt;
        struct rd sub;
        Quern__SlowSample *q = NULL;

        if (get_key(&r, &num, &wt) != 0)
            return -1;
        if (num != STEP_SLOWEST) {
            if (read_field(&r, num, wt, step_tab.f, step_tab.n, m, strings, nstr) != 0)
                return -1;
            continue;
        }
        if (wt != WT_LEN || get_len(&r, &sub) != 0)
            return -1;
        if (m != NULL) {
            q = sl->next++;
            if (m->n_slowest == 0)
                m->slowest = sl->ptr;
            *sl->ptr++ = q;
            m->n_slowest++;
        }
        if (read_msg(sub, slow_tab.f, slow_tab.n, q, strings, nstr) != 0)
            return -1;
    }
    return 0;
}

/* Counts the SlowSamples of a StepInterval: its keys and lengths only. */
static int count_slow(struct rd r, size_t *n)
{
    while (r.p < r.end) {
        uint32_t num;
        unsigned wt;
        uint64_t v;
        struct rd sub;

        if (get_key(&r, &num, &wt) != 0)
            return -1;
        if (wt == WT_VARINT) {
            if (get_varint(&r, &v) != 0)
                return -1;
            continue;
        }
        if (wt != WT_LEN || get_len(&r, &sub) != 0)
            return -1;
        if (num == STEP_SLOWEST)
            (*n)++;
    }
    return 0;
}

/* The Interval's bytes inside an Envelope that holds only it, into *iv. */
static int find_interval(uint8_t *body, size_t len, struct rd *iv)
{
    struct rd r = {body, body + len};
    uint32_t num;
    unsigned wt;

    if (get_key(&r, &num, &wt) != 0 || num != ENVELOPE_INTERVAL || wt != WT_LEN ||
        get_len(&r, iv) != 0)
        return -1;
    return r.p == r.end ? 0 : -1;
}

/* Counts the Interval's steps, scenarios and injector entries, reading only
 * its own keys and lengths (walk checks the rest); the strings are bounded
 * by its length (a string of n bytes takes n + 2 on the wire at least). */
static int count_top(struct rd r, struct counts *c)
{
    c->strings = (size_t)(r.end - r.p);
    while (r.p < r.end) {
        uint32_t num;
        unsigned wt;
        uint64_t v;
        struct rd sub;

        if (get_key(&r, &num, &wt) != 0)
            return -1;
        if (wt == WT_VARINT) {
            if (get_varint(&r, &v) != 0)
                return -1;
            continue;
        }
        if (wt != WT_LEN || get_len(&r, &sub) != 0)
            return -1;
        if (num == IV_STEPS) {
            c->steps++;
            if (count_slow(sub, &c->slow) != 0)
                return -1;
        } else if (num == IV_SCENARIOS)
            c->scens++;
        else if (num == IV_INJECTOR)
            c->inj++;
        else if (num == iv_checks)
            c->checks++;
        else if (num == iv_metrics)
            c->metrics++;
        else
            return -1;
    }
    return 0;
}

/* One pass over the Interval: checks every field and fills d from block's
 * arrays (laid out from count_top's counts, which c counts again). */
static int walk(struct rd r, struct counts *c, interval_decode *fill, struct slots *sl,
                char **strings)
{
    size_t nstr = 0;

    while (r.p < r.end) {
        uint32_t num;
        unsigned wt;
        struct rd sub;
        Quern__Interval *iv = fill != NULL ? &fill->iv : NULL;

        if (get_key(&r, &num, &wt) != 0)
            return -1;
        if (!iv_list(num)) {
            if (read_field(&r, num, wt, iv_tab.f, iv_tab.n, iv, strings, &nstr) != 0)
                return -1;
            continue;
        }
        if (wt != WT_LEN || get_len(&r, &sub) != 0)
            return -1;
        if (num == IV_STEPS) {
            Quern__StepInterval *m = iv != NULL ? iv->steps[iv->n_steps++] : NULL;
            if (read_step(sub, m, sl, strings, &nstr) != 0)
                return -1;
            c->steps++;
        } else if (num == IV_SCENARIOS) {
            void *m = iv != NULL ? iv->scenarios[iv->n_scenarios++] : NULL;
            if (read_msg(sub, scen_tab.f, scen_tab.n, m, strings, &nstr) != 0)
                return -1;
            c->scens++;
        } else if (num == IV_INJECTOR) {
            void *m = iv != NULL ? iv->injector[iv->n_injector++] : NULL;
            if (read_msg(sub, inj_tab.f, inj_tab.n, m, strings, &nstr) != 0)
                return -1;
            c->inj++;
        } else if (num == iv_checks) {
            void *m = iv != NULL ? iv->checks[iv->n_checks++] : NULL;
            if (read_msg(sub, check_tab.f, check_tab.n, m, strings, &nstr) != 0)
                return -1;
            c->checks++;
        } else {
            void *m = iv != NULL ? iv->metrics[iv->n_metrics++] : NULL;
            if (read_msg(sub, metric_tab.f, metric_tab.n, m, strings, &nstr) != 0)
                return -1;
            c->metrics++;
        }
    }
    c->strings += nstr;
    return 0;
}

int interval_decode_envelope(uint8_t *body, size_t len, interval_decode *d)
{
    struct rd iv;
    struct counts c = {0}, again = {0};
    Quern__StepInterval *steps;
    Quern__ScenarioCount *scens;
    Quern__InjectorLoad *inj;
    Quern__SlowSample *slow;
    Quern__CheckCount *checks;
    Quern__MetricSample *metrics;
    struct slots sl;
    char *strings;
    size_t n;

    memset(d, 0, sizeof(*d));
    pthread_once(&tabs_once, tables_init);
    if (find_interval(body, len, &iv) != 0 || count_top(iv, &c) != 0)
        return 0;
    n = c.steps + c.scens + c.inj + c.slow + c.checks + c.metrics;
    /* one block: the structs, then the pointer arrays, then the strings (the
     * structs' sizes are multiples of 8: every part stays aligned) */
    d->block = xmalloc(c.steps * sizeof(*steps) + c.scens * sizeof(*scens) + c.inj * sizeof(*inj) +
                       c.slow * sizeof(*slow) + c.checks * sizeof(*checks) +
                       c.metrics * sizeof(*metrics) + (n + 6) * sizeof(void *) + c.strings + 1);
    steps = d->block;
    scens = (Quern__ScenarioCount *)(steps + c.steps);
    inj = (Quern__InjectorLoad *)(scens + c.scens);
    slow = (Quern__SlowSample *)(inj + c.inj);
    checks = (Quern__CheckCount *)(slow + c.slow);
    metrics = (Quern__MetricSample *)(checks + c.checks);
    quern__envelope__init(&d->env);
    quern__interval__init(&d->iv);
    d->iv.steps = (Quern__StepInterval **)(metrics + c.metrics);
    d->iv.scenarios = (Quern__ScenarioCount **)(d->iv.steps + c.steps + 1);
    d->iv.injector = (Quern__InjectorLoad **)(d->iv.scenarios + c.scens + 1);
    d->iv.checks = (Quern__CheckCount **)(d->iv.injector + c.inj + 1);
    d->iv.metrics = (Quern__MetricSample **)(d->iv.checks + c.checks + 1);
    sl.ptr = (Quern__SlowSample **)(d->iv.metrics + c.metrics + 1);
    sl.next = slow;
    strings = (char *)(sl.ptr + c.slow + 1);
    for (size_t i = 0; i < c.steps; i++) {
        quern__step_interval__init(&steps[i]);
        d->iv.steps[i] = &steps[i];
    }
    for (size_t i = 0; i < c.scens; i++) {
        quern__scenario_count__init(&scens[i]);
        d->iv.scenarios[i] = &scens[i];
    }
    for (size_t i = 0; i < c.inj; i++) {
        quern__injector_load__init(&inj[i]);
        d->iv.injector[i] = &inj[i];
    }
    for (size_t i = 0; i < c.slow; i++)
        quern__slow_sample__init(&slow[i]);
    for (size_t i = 0; i < c.checks; i++) {
        quern__check_count__init(&checks[i]);
        d->iv.checks[i] = &checks[i];
    }
    for (size_t i = 0; i < c.metrics; i++) {
        quern__metric_sample__init(&metrics[i]);
        d->iv.metrics[i] = &metrics[i];
    }
    if (walk(iv, &again, d, &sl, &strings) != 0) {
        interval_decode_free(d); /* nothing was taken from it yet: protobuf-c judges it */
        return 0;
    }
    d->env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
    d->env.interval = &d->iv;
    return 1;
}

void interval_decode_free(interval_decode *d)
{
    xfree(d->block);
    memset(d, 0, sizeof(*d));
}
