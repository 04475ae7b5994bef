/* Unit tests for agent/runchk: every field of a StartRun an agent acts on is
 * checked, with a refusal that names it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agent/runchk.h"
#include "common/err.h"
#include "common/hostres.h"

typedef struct msg {
    Quern__StartRun sr;
    Quern__Schedule sch;
    Quern__VuRange r[2], *rp[2];
    Quern__BundleFile f[2], *fp[2];
    Quern__Property p, *pp[1];
    char *src[1];
} msg;

/* A valid StartRun: 10 VUs in all, this agent 1-3 and 7-8. */
static void make(msg *m)
{
    memset(m, 0, sizeof(*m));
    quern__start_run__init(&m->sr);
    quern__schedule__init(&m->sch);
    for (int i = 0; i < 2; i++) {
        quern__vu_range__init(&m->r[i]);
        quern__bundle_file__init(&m->f[i]);
        m->rp[i] = &m->r[i];
        m->fp[i] = &m->f[i];
    }
    m->r[0].first = 1;
    m->r[0].count = 3;
    m->r[1].first = 7;
    m->r[1].count = 2;
    m->f[0].path = (char *)"main.lua";
    m->f[1].path = (char *)"data/users.csv";
    quern__property__init(&m->p);
    m->p.key = (char *)"base_url";
    m->p.value = (char *)"http://127.0.0.1:8080";
    m->pp[0] = &m->p;
    m->src[0] = (char *)"127.0.0.2";
    m->sr.run_id = 7;
    m->sr.script_name = (char *)"main.lua";
    m->sr.vus_total = 10;
    m->sr.vu_ranges = m->rp;
    m->sr.n_vu_ranges = 2;
    m->sr.files = m->fp;
    m->sr.n_files = 2;
    m->sr.props = m->pp;
    m->sr.n_props = 1;
    m->sr.source_addrs = m->src;
    m->sr.n_source_addrs = 1;
    m->sr.schedule = &m->sch;
    m->sch.duration_us = 5000000;
}

static void refused(msg *m, const char *what)
{
    char err[ERR_MAX] = "";
    uint64_t n;

    assert_int_equal(runchk_start(&m->sr, 1000, &n, err, sizeof(err)), -1);
    if (strstr(err, what) == NULL)
        fail_msg("refusal \"%s\" does not say \"%s\"", err, what);
    make(m);
}

static void test_valid(void **state)
{
    msg m;
    char err[ERR_MAX];
    uint64_t n;

    make(&m);
    assert_int_equal(runchk_start(&m.sr, 1000, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 5);
}

static void test_counts(void **state)
{
    msg m;

    make(&m);
    m.sr.vus_total = 4000000000u; /* an abort on a 128 GB allocation before */
    refused(&m, "vus_total");
    m.sr.vus_total = 0;
    refused(&m, "vus_total");
    m.sr.run_id = 0;
    refused(&m, "run id");
    m.r[1].first = 9; /* 9-10 is fine, 9-11 is not */
    m.r[1].count = 3;
    refused(&m, "outside");
    m.r[1].first = 3; /* overlaps 1-3 */
    refused(&m, "overlaps");
    m.r[0].first = 0;
    refused(&m, "outside");
    m.r[0].first = 4294967295u; /* first + count wraps in 32 bits */
    m.r[0].count = 2;
    refused(&m, "outside");
    {
        char err[ERR_MAX];
        uint64_t n;
        m.sr.vus_total = 5000000;
        m.r[1].count = 2000000;
        assert_int_equal(runchk_start(&m.sr, 1000000, &n, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "can hold"));
        make(&m);
    }
    m.sr.workers = 100000;
    refused(&m, "workers");
}

static void test_names(void **state)
{
    msg m;

    make(&m);
    m.sr.script_name = (char *)"../../x.lua"; /* loaded a script outside the bundle before */
    refused(&m, "script name");
    m.sr.script_name = (char *)"/etc/passwd";
    refused(&m, "script name");
    m.sr.script_name = (char *)"";
    refused(&m, "script name");
    m.sr.script_name = (char *)"other.lua";
    refused(&m, "not in the bundle");
    m.f[1].path = (char *)"data/../../x";
    refused(&m, "bundle path");
    m.p.key = (char *)"";
    refused(&m, "property");
    m.src[0] = (char *)"not-an-address";
    refused(&m, "source address");
}

static void test_schedule(void **state)
{
    msg m;
    Quern__Go go = QUERN__GO__INIT;
    char err[ERR_MAX];

    make(&m);
    m.sch.duration_us = UINT64_MAX;
    refused(&m, "31 days");
    m.sch.arrival_rate = NAN;
    refused(&m, "arrival rate");
    m.sch.arrival_rate = -1;
    refused(&m, "arrival rate");
    m.sr.start_offset_us = INT64_MIN;
    refused(&m, "start offset");
    assert_int_equal(runchk_go(&go, err, sizeof(err)), 0);
    go.start_offset_us = INT64_MAX;
    assert_int_equal(runchk_go(&go, err, sizeof(err)), -1);
    {
        Quern__Stop st = QUERN__STOP__INIT;
        static char longer[RUNCHK_NAME_MAX + 2];
        st.reason = (char *)"interrupted";
        assert_int_equal(runchk_stop(&st, err, sizeof(err)), 0);
        memset(longer, 'x', sizeof(longer) - 1);
        st.reason = longer;
        assert_int_equal(runchk_stop(&st, err, sizeof(err)), -1);
    }
    {
        Quern__Steer st = QUERN__STEER__INIT;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), -1); /* no kind */
        st.kind = QUERN__STEER__KIND__PAUSE;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), 0);
        st.kind = QUERN__STEER__KIND__VUS;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), -1); /* 0 VUs */
        st.vus = 10;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), 0);
        st.vus = STAGES_VUS_MAX + 1;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), -1);
        st.kind = QUERN__STEER__KIND__RATE;
        st.rate = 200;
        st.at_us = 5000000;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), 0);
        st.rate = NAN;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), -1);
        st.rate = 200;
        st.at_us = -1;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), -1);
        st.kind = (Quern__Steer__Kind)9;
        assert_int_equal(runchk_steer(&st, err, sizeof(err)), -1);
    }
}

/* --resolve entries: each checked, and bounded in number. */
static void test_resolve(void **state)
{
    static char *good[] = {(char *)"quern.test:443:127.0.0.1", (char *)"b:80:[::1]"};
    char *bad[1] = {(char *)"quern.test:443"};
    char *many[HOSTRES_ENTRIES_MAX + 1];
    char err[ERR_MAX];
    uint64_t n;
    msg m;

    make(&m);
    m.sr.resolve = good;
    m.sr.n_resolve = 2;
    assert_int_equal(runchk_start(&m.sr, 1000, &n, err, sizeof(err)), 0);
    m.sr.resolve = bad;
    m.sr.n_resolve = 1;
    refused(&m, "resolve entry 1 is malformed");
    for (size_t i = 0; i < HOSTRES_ENTRIES_MAX + 1; i++)
        many[i] = good[0];
    m.sr.resolve = many;
    m.sr.n_resolve = HOSTRES_ENTRIES_MAX + 1;
    refused(&m, "resolve entries, more than");
}

/* A staged load: bounded, and vus_total is every id the stages use (or,
 * steered, active_vus is). */
static void test_stages(void **state)
{
    msg m;
    Quern__RampStage st[3], *sp[3];
    char err[ERR_MAX];
    uint64_t n;
    static Quern__RampStage many[RUNCHK_STAGES_MAX + 1];
    static Quern__RampStage *manyp[RUNCHK_STAGES_MAX + 1];

    for (int i = 0; i < 3; i++) {
        quern__ramp_stage__init(&st[i]);
        sp[i] = &st[i];
    }
    /* 1s:6, 1s:2, 1s:6: 6 + 4 = 10 ids, the vus_total of make() */
    st[0].duration_us = st[1].duration_us = st[2].duration_us = 1000000;
    st[0].target_vus = 6;
    st[1].target_vus = 2;
    st[2].target_vus = 6;
    make(&m);
    m.sch.stages = sp;
    m.sch.n_stages = 3;
    assert_int_equal(runchk_start(&m.sr, 1000, &n, err, sizeof(err)), 0);
    m.sch.stages = sp;
    m.sch.n_stages = 2; /* 6 ids, not 10 */
    refused(&m, "the stages use 6 VU ids, the run has 10");
    /* steered (--control): the stages' 6 ids, then 4 that wait for a vus N */
    m.sch.active_vus = 6;
    m.sch.stages = sp;
    m.sch.n_stages = 2;
    assert_int_equal(runchk_start(&m.sr, 1000, &n, err, sizeof(err)), 0);
    m.sch.active_vus = 11;
    m.sch.stages = sp;
    m.sch.n_stages = 2;
    refused(&m, "the stages use 6 VU ids, the run has 11");
    m.sch.active_vus = 0;
    st[1].duration_us = UINT64_MAX;
    m.sch.stages = sp;
    m.sch.n_stages = 3;
    refused(&m, "stage 2");
    st[1].duration_us = 1000000;
    st[0].target_vus = st[1].target_vus = st[2].target_vus = 0;
    m.sch.stages = sp;
    m.sch.n_stages = 3;
    refused(&m, "every stage targets 0 VUs");
    for (size_t i = 0; i <= RUNCHK_STAGES_MAX; i++) {
        quern__ramp_stage__init(&many[i]);
        manyp[i] = &many[i];
    }
    m.sch.stages = manyp;
    m.sch.n_stages = RUNCHK_STAGES_MAX + 1;
    refused(&m, "stages, more than");
    /* staged scenarios' ids: at most vus_total, and after the run's stages' */
    m.sch.staged_vus = 11;
    refused(&m, "11 staged VUs, more than vus_total 10");
    st[0].target_vus = 6;
    m.sch.staged_vus = 4; /* 1s:6 uses 6 ids, then 4 staged */
    m.sch.stages = sp;
    m.sch.n_stages = 1;
    assert_int_equal(runchk_start(&m.sr, 1000, &n, err, sizeof(err)), 0);
    m.sch.staged_vus = 3;
    m.sch.stages = sp;
    m.sch.n_stages = 1;
    refused(&m, "the stages use 6 VU ids, the run has 7");
}

/* A run by folder (the local agent): an absolute folder, paths without
 * data, and more files than a shipped bundle may hold. */
static void test_local_folder(void **state)
{
    static uint8_t byte = 'x';
    msg m;
    char err[ERR_MAX];
    uint64_t n;

    make(&m);
    m.sr.local_folder = (char *)"/home/u/scen";
    assert_int_equal(runchk_start(&m.sr, 1000, &n, err, sizeof(err)), 0);
    m.sr.local_folder = (char *)"scen";
    refused(&m, "is not an absolute path");
    m.sr.local_folder = (char *)"/home/u/scen";
    /* a file the console made for the run (grpc.load's descriptor sets)
     * carries its bytes in a run by folder too */
    m.f[1].data.data = &byte;
    m.f[1].data.len = 1;
    assert_int_equal(runchk_start(&m.sr, 1000, &n, err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_names),        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_stages),       cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_local_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
