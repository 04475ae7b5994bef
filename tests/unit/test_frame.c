/* Unit tests for proto/frame: the frame reader, encoder and writer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "proto/frame.h"

/* ---------------------------------------------------------------- helpers */

/* Deterministic xorshift64 so a failing fuzz case can be replayed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    uint64_t x = rng_state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

static size_t rng_below(size_t n)
{
    return (size_t)(rng() % n);
}

/* Packs env into a new buffer, for byte-for-byte comparison. */
static uint8_t *pack_env(const Quern__Envelope *env, size_t *len)
{
    uint8_t *buf;

    *len = quern__envelope__get_packed_size(env);
    buf = xmalloc(*len);
    quern__envelope__pack(env, buf);
    return buf;
}

static void assert_env_equal(const Quern__Envelope *a, const Quern__Envelope *b)
{
    size_t la, lb;
    uint8_t *pa = pack_env(a, &la);
    uint8_t *pb = pack_env(b, &lb);

    assert_int_equal(a->body_case, b->body_case);
    assert_int_equal(la, lb);
    assert_memory_equal(pa, pb, la);
    xfree(pa);
    xfree(pb);
}

/* Encodes in, feeds it to a fresh reader in two pieces, and returns what comes
 * out, checked equal to in. The caller frees the result. */
static Quern__Envelope *roundtrip(const Quern__Envelope *in)
{
    frame_reader *r = frame_reader_new(FRAME_MAX_DEFAULT);
    Quern__Envelope *out = NULL;
    uint8_t *buf = NULL;
    char err[ERR_MAX] = "";
    ssize_t n = frame_encode(in, FRAME_MAX_DEFAULT, &buf);
    size_t half;

    assert_true(n > FRAME_HEADER_LEN);
    half = (size_t)n / 2;
    assert_int_equal(frame_reader_feed(r, buf, half, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_feed(r, buf + half, (size_t)n - half, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 1);
    assert_non_null(out);
    assert_env_equal(in, out);
    assert_int_equal(frame_reader_buffered(r), 0);
    xfree(buf);
    frame_reader_free(r);
    return out;
}

/* An envelope carrying a LogLine whose text is text (borrowed). */
static void make_log(Quern__Envelope *env, Quern__LogLine *log, const char *level, char *text)
{
    quern__envelope__init(env);
    quern__log_line__init(log);
    log->level = (char *)level;
    log->text = text;
    env->body_case = QUERN__ENVELOPE__BODY_LOG_LINE;
    env->log_line = log;
}

/* A LogLine envelope whose encoded body is exactly size bytes; text is
 * allocated and returned for the caller to free. */
static char *make_log_of_size(Quern__Envelope *env, Quern__LogLine *log, size_t size)
{
    char *text = xmalloc(size + 1);
    size_t len;

    /* The envelope adds at most 12 bytes around the text. */
    memset(text, 'x', size);
    for (len = size > 16 ? size - 16 : 0; len <= size; len++) {
        text[len] = '\0';
        make_log(env, log, "", text);
        if (quern__envelope__get_packed_size(env) == size)
            return text;
        text[len] = 'x';
    }
    fail_msg("no LogLine encodes to exactly %zu bytes", size);
    return NULL;
}

/* ---------------------------------------------------------------- round trips */

static void test_roundtrip_handshake(void **state)
{
    Quern__Envelope env, *out;
    uint8_t nonce[32];
    uint8_t mac[32];

    for (size_t i = 0; i < sizeof(nonce); i++) {
        nonce[i] = (uint8_t)(i * 7);
        mac[i] = (uint8_t)(255 - i);
    }

    Quern__Hello hello = QUERN__HELLO__INIT;
    hello.version = 1;
    hello.role = "agent";
    hello.nonce.data = nonce;
    hello.nonce.len = sizeof(nonce);
    hello.quern_version = "0.1.0";
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_HELLO;
    env.hello = &hello;
    out = roundtrip(&env);
    assert_int_equal(out->hello->version, 1);
    assert_string_equal(out->hello->role, "agent");
    assert_int_equal(out->hello->nonce.len, 32);
    assert_memory_equal(out->hello->nonce.data, nonce, 32);
    quern__envelope__free_unpacked(out, NULL);

    Quern__AuthProof proof = QUERN__AUTH_PROOF__INIT;
    proof.mac.data = mac;
    proof.mac.len = sizeof(mac);
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_AUTH_PROOF;
    env.auth_proof = &proof;
    out = roundtrip(&env);
    assert_memory_equal(out->auth_proof->mac.data, mac, 32);
    quern__envelope__free_unpacked(out, NULL);

    Quern__AuthResult result = QUERN__AUTH_RESULT__INIT;
    result.ok = 0;
    result.reason = "bad proof";
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_AUTH_RESULT;
    env.auth_result = &result;
    out = roundtrip(&env);
    assert_false(out->auth_result->ok);
    assert_string_equal(out->auth_result->reason, "bad proof");
    quern__envelope__free_unpacked(out, NULL);

    Quern__Register reg = QUERN__REGISTER__INIT;
    reg.name = "inj-01";
    reg.host = "inj-01.example";
    reg.cores = 16;
    reg.workers = 8;
    reg.quern_version = "0.1.0";
    reg.pid = 4242;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_REGISTER;
    env.register_ = &reg;
    out = roundtrip(&env);
    assert_string_equal(out->register_->name, "inj-01");
    assert_int_equal(out->register_->cores, 16);
    assert_int_equal(out->register_->workers, 8);
    quern__envelope__free_unpacked(out, NULL);

    Quern__Registered regd = QUERN__REGISTERED__INIT;
    regd.ok = 1;
    regd.agent_index = 3;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_REGISTERED;
    env.registered = &regd;
    out = roundtrip(&env);
    assert_true(out->registered->ok);
    assert_int_equal(out->registered->agent_index, 3);
    quern__envelope__free_unpacked(out, NULL);
}

static void test_roundtrip_start_run(void **state)
{
    Quern__Envelope env, *out;
    uint8_t lua[] = "local quern = require \"quern\"\n\0binary\xff";
    uint8_t csv[] = "user;password\nalice;a\n";
    Quern__BundleFile f0 = QUERN__BUNDLE_FILE__INIT, f1 = QUERN__BUNDLE_FILE__INIT;
    Quern__BundleFile *files[] = {&f0, &f1};
    Quern__Property p0 = QUERN__PROPERTY__INIT, p1 = QUERN__PROPERTY__INIT;
    Quern__Property *props[] = {&p0, &p1};
    Quern__VuRange r0 = QUERN__VU_RANGE__INIT, r1 = QUERN__VU_RANGE__INIT;
    Quern__VuRange *ranges[] = {&r0, &r1};
    Quern__RampStage s0 = QUERN__RAMP_STAGE__INIT;
    Quern__RampStage *stages[] = {&s0};
    Quern__Schedule sched = QUERN__SCHEDULE__INIT;
    Quern__StartRun sr = QUERN__START_RUN__INIT;
    char *addrs[] = {"10.0.0.1", "10.0.0.2"};

    f0.path = "main.lua";
    f0.data.data = lua;
    f0.data.len = sizeof(lua);
    f0.mode = 0644;
    f1.path = "data/users.csv";
    f1.data.data = csv;
    f1.data.len = sizeof(csv) - 1;
    p0.key = "base_url";
    p0.value = "http://127.0.0.1:8080";
    p1.key = "empty";
    p1.value = "";
    r0.first = 1;
    r0.count = 100;
    r1.first = 401;
    r1.count = 50;
    s0.duration_us = 30000000;
    s0.target_vus = 500;
    sched.duration_us = 300000000;
    sched.ramp_up_us = 60000000;
    sched.runs = 0;
    sched.grace_us = 5000000;
    sched.n_stages = 1;
    sched.stages = stages;
    sched.arrival_rate = 12.5;
    sr.run_id = 0x123456789abcdefull;
    sr.script_name = "main.lua";
    sr.n_files = 2;
    sr.files = files;
    sr.n_props = 2;
    sr.props = props;
    sr.vus_total = 600;
    sr.n_vu_ranges = 2;
    sr.vu_ranges = ranges;
    sr.schedule = &sched;
    sr.start_offset_us = -250000;
    sr.workers = 4;
    sr.run_name = "nightly";
    sr.seed = 77;
    sr.n_source_addrs = 2;
    sr.source_addrs = addrs;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_START_RUN;
    env.start_run = &sr;

    out = roundtrip(&env);
    Quern__StartRun *o = out->start_run;
    assert_int_equal(o->run_id, 0x123456789abcdefull);
    assert_string_equal(o->script_name, "main.lua");
    assert_int_equal(o->n_files, 2);
    assert_string_equal(o->files[1]->path, "data/users.csv");
    assert_int_equal(o->files[0]->data.len, sizeof(lua));
    assert_memory_equal(o->files[0]->data.data, lua, sizeof(lua));
    assert_int_equal(o->files[0]->mode, 0644);
    assert_int_equal(o->n_props, 2);
    assert_string_equal(o->props[0]->value, "http://127.0.0.1:8080");
    assert_string_equal(o->props[1]->value, "");
    assert_int_equal(o->n_vu_ranges, 2);
    assert_int_equal(o->vu_ranges[1]->first, 401);
    assert_int_equal(o->vu_ranges[1]->count, 50);
    assert_non_null(o->schedule);
    assert_int_equal(o->schedule->ramp_up_us, 60000000);
    assert_int_equal(o->schedule->stages[0]->target_vus, 500);
    assert_true(o->schedule->arrival_rate == 12.5);
    assert_int_equal(o->start_offset_us, -250000);
    assert_string_equal(o->source_addrs[1], "10.0.0.2");
    quern__envelope__free_unpacked(out, NULL);
}

static void test_roundtrip_control(void **state)
{
    Quern__Envelope env, *out;

    Quern__Ready ready = QUERN__READY__INIT;
    ready.run_id = 9;
    ready.ok = 0;
    ready.error = "main.lua:12: attempt to index a nil value";
    ready.vus = 0;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_READY;
    env.ready = &ready;
    out = roundtrip(&env);
    assert_int_equal(out->ready->run_id, 9);
    assert_string_equal(out->ready->error, "main.lua:12: attempt to index a nil value");
    quern__envelope__free_unpacked(out, NULL);

    Quern__Go go = QUERN__GO__INIT;
    go.run_id = 9;
    go.start_offset_us = 1500000;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_GO;
    env.go = &go;
    out = roundtrip(&env);
    assert_int_equal(out->go->start_offset_us, 1500000);
    quern__envelope__free_unpacked(out, NULL);

    Quern__Stop stop = QUERN__STOP__INIT;
    stop.run_id = 9;
    stop.reason = "interrupted";
    stop.immediate = 1;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_STOP;
    env.stop = &stop;
    out = roundtrip(&env);
    assert_string_equal(out->stop->reason, "interrupted");
    assert_true(out->stop->immediate);
    quern__envelope__free_unpacked(out, NULL);

    Quern__Ping ping = QUERN__PING__INIT;
    ping.seq = 41;
    ping.sent_us = 1700000000123456ll;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_PING;
    env.ping = &ping;
    out = roundtrip(&env);
    assert_int_equal(out->ping->seq, 41);
    assert_int_equal(out->ping->sent_us, 1700000000123456ll);
    quern__envelope__free_unpacked(out, NULL);

    Quern__Pong pong = QUERN__PONG__INIT;
    pong.seq = 41;
    pong.sent_us = 1700000000123456ll;
    pong.peer_us = 1700000000124000ll;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_PONG;
    env.pong = &pong;
    out = roundtrip(&env);
    assert_int_equal(out->pong->seq, 41);
    assert_int_equal(out->pong->peer_us, 1700000000124000ll);
    quern__envelope__free_unpacked(out, NULL);

    Quern__WorkerState ws = QUERN__WORKER_STATE__INIT;
    ws.run_id = 9;
    ws.worker = 2;
    ws.state = "crashed";
    ws.exit_status = 0;
    ws.signal = 11;
    ws.message = "worker 2 killed by SIGSEGV";
    ws.pid = 3131;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_WORKER_STATE;
    env.worker_state = &ws;
    out = roundtrip(&env);
    assert_string_equal(out->worker_state->state, "crashed");
    assert_int_equal(out->worker_state->signal, 11);
    assert_int_equal(out->worker_state->worker, 2);
    quern__envelope__free_unpacked(out, NULL);

    Quern__LogLine log;
    make_log(&env, &log, "warn", "pacing missed (é, ✓)");
    log.origin = "inj-01/worker-2";
    log.time_us = 17;
    out = roundtrip(&env);
    assert_string_equal(out->log_line->level, "warn");
    assert_string_equal(out->log_line->text, "pacing missed (é, ✓)");
    assert_string_equal(out->log_line->origin, "inj-01/worker-2");
    quern__envelope__free_unpacked(out, NULL);

    Quern__RunFinished fin = QUERN__RUN_FINISHED__INIT;
    fin.run_id = 9;
    fin.status = "stopped";
    fin.message = "SIGINT";
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_RUN_FINISHED;
    env.run_finished = &fin;
    out = roundtrip(&env);
    assert_string_equal(out->run_finished->status, "stopped");
    assert_string_equal(out->run_finished->message, "SIGINT");
    quern__envelope__free_unpacked(out, NULL);
}

static void test_roundtrip_stats(void **state)
{
    Quern__Envelope env, *out;
    Quern__StepDef d0 = QUERN__STEP_DEF__INIT, d1 = QUERN__STEP_DEF__INIT;
    Quern__StepDef *defs[] = {&d0, &d1};
    Quern__StepsDef sd = QUERN__STEPS_DEF__INIT;

    d0.index = 0;
    d0.id = "SC-CONSULTATION-PROFIL-STEP-1";
    d0.label = "Login";
    d0.scenario = "CONSULTATION-PROFIL";
    d0.number = 1;
    d1.index = 1;
    d1.id = "SC-CONSULTATION-PROFIL-STEP-2";
    d1.label = "Consultation du profil";
    d1.scenario = "CONSULTATION-PROFIL";
    d1.number = 2;
    sd.run_id = 5;
    sd.n_steps = 2;
    sd.steps = defs;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_STEPS_DEF;
    env.steps_def = &sd;
    out = roundtrip(&env);
    assert_int_equal(out->steps_def->n_steps, 2);
    assert_string_equal(out->steps_def->steps[1]->label, "Consultation du profil");
    assert_int_equal(out->steps_def->steps[1]->index, 1);
    quern__envelope__free_unpacked(out, NULL);

    uint8_t hist[300];
    for (size_t i = 0; i < sizeof(hist); i++)
        hist[i] = (uint8_t)(i % 5 == 0 ? 0 : i);
    Quern__StatusCount c200 = QUERN__STATUS_COUNT__INIT, c0 = QUERN__STATUS_COUNT__INIT;
    Quern__StatusCount *codes[] = {&c200, &c0};
    c200.code = 200;
    c200.count = 1200;
    c0.code = 0;
    c0.count = 3;
    Quern__StepInterval si = QUERN__STEP_INTERVAL__INIT;
    Quern__StepInterval *sis[] = {&si};
    si.step = 1;
    si.count = 1203;
    si.errors_technical = 3;
    si.errors_functional = 2;
    si.bytes_in = 5ull << 32;
    si.bytes_out = 77;
    si.sum_dns_us = 1;
    si.sum_connect_us = 2;
    si.sum_tls_us = 3;
    si.sum_ttfb_us = 4;
    si.histogram.data = hist;
    si.histogram.len = sizeof(hist);
    si.sample_technical = "connection refused";
    si.sample_functional = "expected 200, got 500";
    si.sum_latency_us = 999;
    si.max_latency_us = 98;
    si.n_statuses = 2;
    si.statuses = codes;
    Quern__ScenarioCount sc = QUERN__SCENARIO_COUNT__INIT;
    Quern__ScenarioCount *scs[] = {&sc};
    sc.name = "CONSULTATION-PROFIL";
    sc.runs = 400;
    sc.missed_pacing = 4;
    Quern__Interval iv = QUERN__INTERVAL__INIT;
    iv.run_id = 5;
    iv.second = 61;
    iv.active_vus = 200;
    iv.n_steps = 1;
    iv.steps = sis;
    iv.n_scenarios = 1;
    iv.scenarios = scs;
    iv.last = 1;
    quern__envelope__init(&env);
    env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
    env.interval = &iv;
    out = roundtrip(&env);
    Quern__Interval *o = out->interval;
    assert_int_equal(o->second, 61);
    assert_int_equal(o->active_vus, 200);
    assert_true(o->last);
    assert_int_equal(o->n_steps, 1);
    assert_int_equal(o->steps[0]->count, 1203);
    assert_int_equal(o->steps[0]->bytes_in, 5ull << 32);
    assert_int_equal(o->steps[0]->histogram.len, sizeof(hist));
    assert_memory_equal(o->steps[0]->histogram.data, hist, sizeof(hist));
    assert_string_equal(o->steps[0]->sample_functional, "expected 200, got 500");
    assert_int_equal(o->steps[0]->statuses[0]->code, 200);
    assert_int_equal(o->scenarios[0]->missed_pacing, 4);
    quern__envelope__free_unpacked(out, NULL);
}

/* ---------------------------------------------------------------- reader */

static void test_one_byte_at_a_time(void **state)
{
    Quern__Envelope env, *out = NULL;
    Quern__LogLine log;
    frame_reader *r = frame_reader_new(FRAME_MAX_SMALL);
    uint8_t *buf;
    char err[ERR_MAX] = "";
    ssize_t n;

    make_log(&env, &log, "info", "fed one byte at a time");
    n = frame_encode(&env, FRAME_MAX_SMALL, &buf);
    assert_true(n > 0);
    for (ssize_t i = 0; i < n; i++) {
        assert_int_equal(frame_reader_feed(r, buf + i, 1, err, sizeof(err)), 0);
        if (i < n - 1) {
            assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 0);
            assert_null(out);
            assert_int_equal(frame_reader_buffered(r), (size_t)i + 1);
        }
    }
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 1);
    assert_env_equal(&env, out);
    quern__envelope__free_unpacked(out, NULL);
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_buffered(r), 0);
    xfree(buf);
    frame_reader_free(r);
}

static void test_several_frames_one_feed(void **state)
{
    char *texts[] = {"first", "second", "third"};
    Quern__Envelope env[3], *out = NULL;
    Quern__LogLine log[3];
    frame_reader *r = frame_reader_new(FRAME_MAX_SMALL);
    uint8_t stream[1024];
    size_t len = 0;
    char err[ERR_MAX] = "";

    for (int i = 0; i < 3; i++) {
        uint8_t *buf;
        ssize_t n;

        make_log(&env[i], &log[i], "info", texts[i]);
        n = frame_encode(&env[i], FRAME_MAX_SMALL, &buf);
        assert_true(n > 0);
        memcpy(stream + len, buf, (size_t)n);
        len += (size_t)n;
        xfree(buf);
    }
    /* Plus the first two bytes of a fourth frame's header. */
    stream[len++] = 0;
    stream[len++] = 0;
    assert_int_equal(frame_reader_feed(r, stream, len, err, sizeof(err)), 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 1);
        assert_string_equal(out->log_line->text, texts[i]);
        quern__envelope__free_unpacked(out, NULL);
    }
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_buffered(r), 2);
    frame_reader_free(r);
}

static void test_max_size(void **state)
{
    const size_t max = 1000;
    Quern__Envelope env, *out = NULL;
    Quern__LogLine log;
    frame_reader *r = frame_reader_new(max);
    char *text = make_log_of_size(&env, &log, max);
    uint8_t *buf = NULL;
    uint8_t hdr[4] = {0, 0, 0x03, 0xe9}; /* 1001 */
    char err[ERR_MAX] = "";
    ssize_t n;

    /* Exactly max: encoded and accepted. */
    assert_int_equal(frame_encode(&env, max - 1, &buf), -1);
    assert_null(buf);
    n = frame_encode(&env, max, &buf);
    assert_int_equal(n, FRAME_HEADER_LEN + max);
    assert_int_equal(frame_reader_feed(r, buf, (size_t)n, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 1);
    assert_string_equal(out->log_line->text, text);
    quern__envelope__free_unpacked(out, NULL);

    /* max + 1: refused as soon as the header is in, header split in two. */
    assert_int_equal(frame_reader_feed(r, hdr, 2, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_feed(r, hdr + 2, 2, err, sizeof(err)), -1);
    assert_string_equal(err, "frame of 1001 bytes exceeds maximum 1000");
    /* The reader stays failed. */
    err[0] = '\0';
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), -1);
    assert_null(out);
    assert_string_equal(err, "frame of 1001 bytes exceeds maximum 1000");
    assert_int_equal(frame_reader_feed(r, buf, (size_t)n, err, sizeof(err)), -1);
    frame_reader_free(r);

    /* A header announcing 4 GiB - 1 behind a valid frame, in the same feed. */
    r = frame_reader_new(max);
    uint8_t *two = xmalloc((size_t)n + 4);
    memcpy(two, buf, (size_t)n);
    memset(two + n, 0xff, 4);
    assert_int_equal(frame_reader_feed(r, two, (size_t)n + 4, err, sizeof(err)), -1);
    assert_string_equal(err, "frame of 4294967295 bytes exceeds maximum 1000");
    xfree(two);
    frame_reader_free(r);
    xfree(buf);
    xfree(text);
}

static void test_zero_length_refused(void **state)
{
    frame_reader *r = frame_reader_new(FRAME_MAX_SMALL);
    uint8_t hdr[4] = {0, 0, 0, 0};
    char err[ERR_MAX] = "";

    assert_int_equal(frame_reader_feed(r, hdr, 4, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "empty frame"));
    frame_reader_free(r);

    /* And the encoder never makes one: an Envelope with no body is empty. */
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    uint8_t *buf = NULL;
    assert_int_equal(frame_encode(&env, FRAME_MAX_SMALL, &buf), -1);
    assert_null(buf);
}

static void test_garbage_body(void **state)
{
    frame_reader *r = frame_reader_new(FRAME_MAX_SMALL);
    /* A 5-byte body that is a truncated varint, then a valid frame. */
    uint8_t garbage[] = {0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0xff};
    Quern__Envelope env, *out = NULL;
    Quern__LogLine log;
    uint8_t *buf;
    char err[ERR_MAX] = "";
    ssize_t n;

    make_log(&env, &log, "info", "after the garbage");
    n = frame_encode(&env, FRAME_MAX_SMALL, &buf);
    assert_int_equal(frame_reader_feed(r, garbage, sizeof(garbage), err, sizeof(err)), 0);
    assert_int_equal(frame_reader_feed(r, buf, (size_t)n, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), -1);
    assert_null(out);
    assert_string_equal(err, "frame of 5 bytes is not a valid Envelope");
    /* Framing is intact: the frame after it still decodes. */
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 1);
    assert_string_equal(out->log_line->text, "after the garbage");
    quern__envelope__free_unpacked(out, NULL);
    xfree(buf);
    frame_reader_free(r);
}

/* Drains r; returns -1 if the reader must be dropped, else 0. Counts outcomes. */
static int drain(frame_reader *r, int *decoded, int *garbage)
{
    Quern__Envelope *out;
    char err[ERR_MAX];
    int rc;

    while ((rc = frame_reader_next(r, &out, err, sizeof(err))) == 1) {
        (*decoded)++;
        quern__envelope__free_unpacked(out, NULL);
    }
    if (rc < 0)
        (*garbage)++;
    return rc;
}

static void test_fuzz_random(void **state)
{
    frame_reader *r = frame_reader_new(4096);
    uint8_t chunk[512];
    char err[ERR_MAX];
    int decoded = 0, garbage = 0, refused = 0;

    for (int iter = 0; iter < 20000; iter++) {
        size_t len = 1 + rng_below(sizeof(chunk) - 4);

        for (size_t i = 0; i < len; i++)
            chunk[i] = (uint8_t)rng();
        switch (rng_below(4)) {
        case 0: /* a plausible header, so random bodies reach the decoder */
            if (len > 4) {
                chunk[0] = 0;
                chunk[1] = 0;
                chunk[2] = (uint8_t)rng_below(2);
                chunk[3] = (uint8_t)(1 + rng_below(255));
            }
            break;
        case 1: /* a well-formed LogLine frame with random text bytes */
            len = 8 + rng_below(100);
            chunk[0] = 0;
            chunk[1] = 0;
            chunk[2] = 0;
            chunk[3] = (uint8_t)(len - 4);
            chunk[4] = (15 << 3) | 2; /* Envelope.log_line */
            chunk[5] = (uint8_t)(len - 6);
            chunk[6] = (2 << 3) | 2; /* LogLine.text */
            chunk[7] = (uint8_t)(len - 8);
            break;
        default: /* all random */
            break;
        }
        if (frame_reader_feed(r, chunk, len, err, sizeof(err)) < 0) {
            refused++;
            frame_reader_free(r);
            r = frame_reader_new(4096);
            continue;
        }
        assert_true(frame_reader_buffered(r) <= 4096 + 4 + sizeof(chunk));
        if (drain(r, &decoded, &garbage) < 0) {
            frame_reader_free(r);
            r = frame_reader_new(4096);
        }
    }
    frame_reader_free(r);
    /* The loop reached all three outcomes. */
    assert_true(decoded > 0);
    assert_true(garbage > 0);
    assert_true(refused > 0);
}

static void test_fuzz_mutated(void **state)
{
    Quern__Envelope env;
    Quern__LogLine log;
    frame_reader *r = frame_reader_new(FRAME_MAX_SMALL);
    uint8_t *buf;
    char err[ERR_MAX];
    int decoded = 0, garbage = 0;
    ssize_t n;

    make_log(&env, &log, "info", "a line to be mangled by the fuzzer");
    log.origin = "inj/worker-1";
    log.time_us = 123456789;
    n = frame_encode(&env, FRAME_MAX_SMALL, &buf);
    assert_true(n > 8);
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t *copy = xmalloc((size_t)n);
        int flips = 1 + (int)rng_below(4);

        memcpy(copy, buf, (size_t)n);
        for (int f = 0; f < flips; f++)
            copy[FRAME_HEADER_LEN + rng_below((size_t)n - FRAME_HEADER_LEN)] = (uint8_t)rng();
        /* Fed in random pieces. */
        for (size_t off = 0; off < (size_t)n;) {
            size_t piece = 1 + rng_below((size_t)n - off);

            assert_int_equal(frame_reader_feed(r, copy + off, piece, err, sizeof(err)), 0);
            off += piece;
        }
        xfree(copy);
        drain(r, &decoded, &garbage);
        assert_int_equal(frame_reader_buffered(r), 0);
    }
    frame_reader_free(r);
    xfree(buf);
    assert_true(decoded > 0);
    assert_true(garbage > 0);
}

static void test_buffer_compacts(void **state)
{
    Quern__Envelope env, *out = NULL;
    Quern__LogLine log;
    frame_reader *r = frame_reader_new(FRAME_MAX_DEFAULT);
    char *big = make_log_of_size(&env, &log, 3 * 1024 * 1024);
    uint8_t *buf;
    char err[ERR_MAX];
    ssize_t n;

    /* One large frame, fed in 64 KiB pieces. */
    n = frame_encode(&env, FRAME_MAX_DEFAULT, &buf);
    for (size_t off = 0; off < (size_t)n; off += 65536) {
        size_t piece = (size_t)n - off < 65536 ? (size_t)n - off : 65536;

        assert_int_equal(frame_reader_feed(r, buf + off, piece, err, sizeof(err)), 0);
    }
    assert_true(frame_reader_capacity(r) >= (size_t)n);
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 1);
    assert_int_equal(strlen(out->log_line->text), strlen(big));
    quern__envelope__free_unpacked(out, NULL);
    /* The memory goes back once it is taken. */
    assert_true(frame_reader_capacity(r) <= 64 * 1024);
    xfree(buf);
    xfree(big);

    /* A long stream of small frames, cut across frame boundaries. */
    make_log(&env, &log, "info", "a small frame of a long-lived connection");
    n = frame_encode(&env, FRAME_MAX_DEFAULT, &buf);
    size_t stream_len = (size_t)n * 20000;
    uint8_t *stream = xmalloc(stream_len);
    int got = 0;

    for (int i = 0; i < 20000; i++)
        memcpy(stream + (size_t)i * (size_t)n, buf, (size_t)n);
    for (size_t off = 0; off < stream_len;) {
        size_t piece = 1 + rng_below(3000);

        if (piece > stream_len - off)
            piece = stream_len - off;
        assert_int_equal(frame_reader_feed(r, stream + off, piece, err, sizeof(err)), 0);
        off += piece;
        while (frame_reader_next(r, &out, err, sizeof(err)) == 1) {
            got++;
            quern__envelope__free_unpacked(out, NULL);
        }
        assert_true(frame_reader_buffered(r) < (size_t)n);
        assert_true(frame_reader_capacity(r) <= 64 * 1024);
    }
    assert_int_equal(got, 20000);
    xfree(stream);
    xfree(buf);
    frame_reader_free(r);
}

/* ---------------------------------------------------------------- fds and the writer */

static void make_pair(int sv[2], int sndbuf)
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(fcntl(sv[i], F_SETFL, fcntl(sv[i], F_GETFL) | O_NONBLOCK), 0);
    if (sndbuf > 0) {
        assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
        assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sndbuf, sizeof(sndbuf)), 0);
    }
}

static void test_read_fd(void **state)
{
    Quern__Envelope env, *out = NULL;
    Quern__LogLine log;
    frame_reader *r = frame_reader_new(FRAME_MAX_SMALL);
    uint8_t *buf;
    char err[ERR_MAX] = "";
    int sv[2];
    ssize_t n;

    make_pair(sv, 0);
    /* Nothing there yet: -1 with EAGAIN, not an error. */
    errno = 0;
    assert_int_equal(frame_reader_read_fd(r, sv[1], err, sizeof(err)), -1);
    assert_true(errno == EAGAIN || errno == EWOULDBLOCK);

    make_log(&env, &log, "info", "over a socket");
    n = frame_encode(&env, FRAME_MAX_SMALL, &buf);
    assert_int_equal(write(sv[0], buf, (size_t)n), n);
    assert_int_equal(write(sv[0], buf, (size_t)n), n);
    close(sv[0]);
    assert_int_equal(frame_reader_read_fd(r, sv[1], err, sizeof(err)), 2 * n);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), 1);
        assert_string_equal(out->log_line->text, "over a socket");
        quern__envelope__free_unpacked(out, NULL);
    }
    /* End of file. */
    assert_int_equal(frame_reader_read_fd(r, sv[1], err, sizeof(err)), 0);
    close(sv[1]);
    xfree(buf);
    frame_reader_free(r);

    /* An oversized header through an fd. */
    uint8_t hdr[4] = {0x01, 0, 0, 0}; /* 16 MiB */
    r = frame_reader_new(FRAME_MAX_SMALL);
    make_pair(sv, 0);
    assert_int_equal(write(sv[0], hdr, 4), 4);
    errno = 0;
    assert_int_equal(frame_reader_read_fd(r, sv[1], err, sizeof(err)), -1);
    assert_int_equal(errno, EMSGSIZE);
    assert_string_equal(err, "frame of 16777216 bytes exceeds maximum 1048576");
    assert_int_equal(frame_reader_next(r, &out, err, sizeof(err)), -1);
    close(sv[0]);
    close(sv[1]);
    frame_reader_free(r);
}

#define WRITER_FRAMES 60

static void test_writer_partial_writes(void **state)
{
    frame_writer *w = frame_writer_new(FRAME_MAX_SMALL);
    frame_reader *r = frame_reader_new(FRAME_MAX_SMALL);
    Quern__Envelope env, *out = NULL;
    Quern__LogLine log;
    char *texts[WRITER_FRAMES];
    char err[ERR_MAX];
    int sv[2];
    int got = 0, saw_pending = 0, rc = 0;

    make_pair(sv, 4096);
    for (int i = 0; i < WRITER_FRAMES; i++) {
        size_t len = 2000 + (size_t)i * 97;

        texts[i] = xmalloc(len + 1);
        for (size_t j = 0; j < len; j++)
            texts[i][j] = (char)('a' + (i + j) % 26);
        texts[i][len] = '\0';
        make_log(&env, &log, "info", texts[i]);
        assert_int_equal(frame_writer_push(w, &env, FRAME_MAX_SMALL), 0);
    }
    assert_true(frame_writer_pending(w) > 100000);
    for (int loops = 0; got < WRITER_FRAMES && loops < 100000; loops++) {
        rc = frame_writer_flush(w, sv[0]);
        assert_true(rc >= 0);
        if (rc == 0)
            saw_pending = 1;
        if (frame_reader_read_fd(r, sv[1], err, sizeof(err)) < 0)
            assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
        while (frame_reader_next(r, &out, err, sizeof(err)) == 1) {
            assert_true(got < WRITER_FRAMES);
            assert_string_equal(out->log_line->text, texts[got]);
            got++;
            quern__envelope__free_unpacked(out, NULL);
        }
    }
    assert_int_equal(got, WRITER_FRAMES);
    assert_true(saw_pending); /* the small socket buffer forced partial writes */
    assert_int_equal(frame_writer_flush(w, sv[0]), 1);
    assert_int_equal(frame_writer_pending(w), 0);
    for (int i = 0; i < WRITER_FRAMES; i++)
        xfree(texts[i]);
    close(sv[0]);
    close(sv[1]);
    frame_writer_free(w);
    frame_reader_free(r);
}

static void test_writer_queue_full(void **state)
{
    Quern__Envelope env;
    Quern__LogLine log;
    char *text;
    uint8_t sink[512];
    int sv[2];
    /* Room for two frames of 100 bytes, not three. */
    frame_writer *w = frame_writer_new(2 * (FRAME_HEADER_LEN + 100) + 50);

    text = make_log_of_size(&env, &log, 100);
    assert_int_equal(frame_writer_push(w, &env, 1000), 0);
    assert_int_equal(frame_writer_push(w, &env, 1000), 0);
    assert_int_equal(frame_writer_pending(w), 208);
    errno = 0;
    assert_int_equal(frame_writer_push(w, &env, 1000), -1);
    assert_int_equal(errno, ENOBUFS);
    assert_int_equal(frame_writer_pending(w), 208);

    /* Too big for max_frame, whatever the room. */
    errno = 0;
    assert_int_equal(frame_writer_push(w, &env, 99), -1);
    assert_int_equal(errno, EMSGSIZE);
    /* No body. */
    Quern__Envelope empty = QUERN__ENVELOPE__INIT;
    errno = 0;
    assert_int_equal(frame_writer_push(w, &empty, 1000), -1);
    assert_int_equal(errno, EMSGSIZE);

    /* Once flushed there is room again. */
    make_pair(sv, 0);
    assert_int_equal(frame_writer_flush(w, sv[0]), 1);
    assert_int_equal(read(sv[1], sink, sizeof(sink)), 208);
    assert_int_equal(frame_writer_push(w, &env, 1000), 0);
    assert_int_equal(frame_writer_pending(w), 104);

    /* The peer has gone: EPIPE, and no SIGPIPE kills the test. */
    close(sv[1]);
    errno = 0;
    assert_int_equal(frame_writer_flush(w, sv[0]), -1);
    assert_int_equal(errno, EPIPE);
    close(sv[0]);
    xfree(text);
    frame_writer_free(w);
    frame_writer_free(NULL);
    frame_reader_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_handshake),
        cmocka_unit_test(test_roundtrip_start_run),
        cmocka_unit_test(test_roundtrip_control),
        cmocka_unit_test(test_roundtrip_stats),
        cmocka_unit_test(test_one_byte_at_a_time),
        cmocka_unit_test(test_several_frames_one_feed),
        cmocka_unit_test(test_max_size),
        cmocka_unit_test(test_zero_length_refused),
        cmocka_unit_test(test_garbage_body),
        cmocka_unit_test(test_fuzz_random),
        cmocka_unit_test(test_fuzz_mutated),
        cmocka_unit_test(test_buffer_compacts),
        cmocka_unit_test(test_read_fd),
        cmocka_unit_test(test_writer_partial_writes),
        cmocka_unit_test(test_writer_queue_full),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
