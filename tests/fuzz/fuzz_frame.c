/* fuzz_frame — bytes off a socket: the frame reader and envelope unpacking
 * (proto/frame), and what the console's and the agent's message handlers do
 * with each message's fields before acting on them.
 *
 * Input: byte 0 chooses how the rest is cut into reads (1..64 bytes each)
 * and the reader's bound (64 bytes or FRAME_MAX_SMALL); the rest is the
 * stream. Each envelope taken goes to the checks a handler runs on it:
 * Hello (protocol, role, nonce length), AuthProof (auth_verify, any mac
 * length), Register (the console's agent name), StepsDef (the agent's
 * scenario table), StartRun (VU ranges, bundle paths), Interval (interval_window_add,
 * as both the console and the agent merge them), FilePart (gather_part, the
 * console writing result files into a private folder), and the text fields
 * of the others. Then: the reader never holds more than it was fed; once
 * it fails it stays failed; an envelope that decoded encodes into a frame
 * that decodes and encodes again to the same bytes. */
#include <string.h>

#include "common/err.h"
#include "proto/bundle.h"
#include "agent/rundir.h"
#include "common/mem.h"
#include "console/gather.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/interval_window.h"
#include "tests/fuzz/fuzz_util.h"

static const char *const scen_names[] = {"CONSULTATION-PROFIL", "API"};
static const char token[] = "fuzz-token";
static char gdir[64];
static gather *g;

static void on_second(void *ud, uint64_t second, const interval_sum *sum, int late)
{
}

static void cleanup(void)
{
    gather_free(g);
    rundir_remove(-1, gdir); /* the same recursive removal, no link followed */
}

/* The private folder the console writes result files into. */
static void setup(void)
{
    char err[ERR_MAX];

    snprintf(gdir, sizeof(gdir), "/tmp/quern-fuzz-frame.XXXXXX");
    fuzz_check(mkdtemp(gdir) != NULL);
    g = gather_new("/dev/null", gdir, err, sizeof(err));
    fuzz_check(g != NULL);
    atexit(cleanup);
}

static void check_str(const char *s)
{
    char buf[512];

    fuzz_check(s != NULL);
    snprintf(buf, sizeof(buf), "%s", s);
}

/* What the handlers of agent/agent.c and console/agents.c read of env. */
static void handle(const Quern__Envelope *env, interval_window *w)
{
    char err[ERR_MAX];

    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_HELLO: {
        const Quern__Hello *h = env->hello;
        uint8_t nonce[AUTH_NONCE_LEN];
        check_str(h->role);
        check_str(h->quern_version);
        if (h->version == 1 && (strcmp(h->role, "agent") == 0 || strcmp(h->role, "console") == 0) &&
            h->nonce.len == AUTH_NONCE_LEN)
            memcpy(nonce, h->nonce.data, AUTH_NONCE_LEN);
        break;
    }
    case QUERN__ENVELOPE__BODY_AUTH_PROOF: {
        uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN];
        memset(na, 1, sizeof(na));
        memset(nc, 2, sizeof(nc));
        fuzz_check(auth_verify(token, sizeof(token) - 1, "agent", nc, na, env->auth_proof->mac.data,
                               env->auth_proof->mac.len) == 0);
        break;
    }
    case QUERN__ENVELOPE__BODY_AUTH_RESULT:
        check_str(env->auth_result->reason);
        break;
    case QUERN__ENVELOPE__BODY_REGISTER: {
        const Quern__Register *rg = env->register_;
        char name[100];
        check_str(rg->host);
        check_str(rg->quern_version);
        snprintf(name, sizeof(name), "%s", rg->name[0] ? rg->name : rg->host);
        break;
    }
    case QUERN__ENVELOPE__BODY_REGISTERED:
        check_str(env->registered->reason);
        break;
    case QUERN__ENVELOPE__BODY_STEPS_DEF: {
        const Quern__StepsDef *sd = env->steps_def;
        for (size_t i = 0; i < sd->n_steps; i++) {
            fuzz_check(sd->steps[i] != NULL);
            check_str(sd->steps[i]->id);
            check_str(sd->steps[i]->label);
            check_str(sd->steps[i]->scenario);
        }
        break;
    }
    case QUERN__ENVELOPE__BODY_START_RUN: {
        const Quern__StartRun *sr = env->start_run;
        uint64_t nvus = 0;
        for (size_t k = 0; k < sr->n_vu_ranges; k++)
            nvus += sr->vu_ranges[k]->count;
        for (size_t i = 0; i < sr->n_files; i++)
            bundle_path_ok(sr->files[i]->path);
        for (size_t i = 0; i < sr->n_props; i++) {
            check_str(sr->props[i]->key);
            check_str(sr->props[i]->value);
        }
        for (size_t i = 0; i < sr->n_source_addrs; i++)
            check_str(sr->source_addrs[i]);
        check_str(sr->script_name);
        check_str(sr->run_name);
        check_str(sr->agent_name);
        check_str(sr->script_display);
        (void)nvus;
        break;
    }
    case QUERN__ENVELOPE__BODY_READY:
        check_str(env->ready->error);
        break;
    case QUERN__ENVELOPE__BODY_STOP:
        check_str(env->stop->reason);
        break;
    case QUERN__ENVELOPE__BODY_INTERVAL:
        interval_window_add(w, env->interval, scen_names, 1, err, sizeof(err));
        break;
    case QUERN__ENVELOPE__BODY_WORKER_STATE:
        check_str(env->worker_state->state);
        check_str(env->worker_state->message);
        break;
    case QUERN__ENVELOPE__BODY_LOG_LINE:
        check_str(env->log_line->text);
        break;
    case QUERN__ENVELOPE__BODY_FILE_PART: {
        const Quern__FilePart *fp = env->file_part;
        /* Result files are written where the part says: keep the fuzzer's
         * files small (the offset bound itself is checked by gather). */
        if (fp->offset > ((uint64_t)1 << 50) || fp->offset < ((uint64_t)1 << 20)) {
            if (gather_part(g, fp, err, sizeof(err)) == 0 && fp->name != NULL &&
                strcmp(fp->name, "jtl") != 0) {
                char path[256];
                fuzz_check(strchr(fp->name, '/') == NULL);
                snprintf(path, sizeof(path), "%s/%s", gdir, fp->name);
                unlink(path);
            }
        }
        break;
    }
    case QUERN__ENVELOPE__BODY_RUN_FINISHED:
        check_str(env->run_finished->status);
        check_str(env->run_finished->message);
        break;
    default:
        break;
    }
}

/* 1 when m or a message inside it holds fields this build does not know:
 * protobuf-c keeps them and writes them back in its own form, which it may
 * then refuse (a field number 0 written as two bytes is taken, as one byte
 * it is not); quern never sends such fields, so the round trip is checked
 * without them. */
static int has_unknown(const ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;

    if (m->n_unknown_fields > 0)
        return 1;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        const char *base = (const char *)m + f->offset;
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)((const char *)m + f->quantifier_offset);
            ProtobufCMessage *const *v = *(ProtobufCMessage *const *const *)base;
            for (size_t k = 0; k < n; k++)
                if (has_unknown(v[k]))
                    return 1;
        } else {
            const ProtobufCMessage *sub = *(ProtobufCMessage *const *)base;
            if (sub != NULL && has_unknown(sub))
                return 1;
        }
    }
    return 0;
}

/* encode(decode(encode(env))) == encode(env). */
static void roundtrip(const Quern__Envelope *env)
{
    uint8_t *f1 = NULL, *f2 = NULL;
    ssize_t n1 = frame_encode(env, FRAME_MAX_DEFAULT, &f1), n2;
    frame_reader *r;
    Quern__Envelope *back = NULL;
    char err[ERR_MAX];

    if (n1 < 0) {
        fuzz_check(f1 == NULL);
        return;
    }
    if (has_unknown(&env->base)) {
        xfree(f1);
        return;
    }
    r = frame_reader_new(FRAME_MAX_DEFAULT);
    fuzz_check(frame_reader_feed(r, f1, (size_t)n1, err, sizeof(err)) == 0);
    fuzz_check(frame_reader_next(r, &back, err, sizeof(err)) == 1);
    fuzz_check(back->body_case == env->body_case);
    fuzz_check(frame_reader_buffered(r) == 0);
    n2 = frame_encode(back, FRAME_MAX_DEFAULT, &f2);
    fuzz_check(n2 == n1 && memcmp(f1, f2, (size_t)n1) == 0);
    quern__envelope__free_unpacked(back, NULL);
    frame_reader_free(r);
    xfree(f1);
    xfree(f2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t chunk, max, fed = 0;
    frame_reader *r;
    interval_window w;
    char err[ERR_MAX];
    int failed = 0;

    if (size < 1)
        return 0;
    if (g == NULL)
        setup();
    chunk = (data[0] & 0x3f) + 1;
    max = data[0] & 0x40 ? 64 : FRAME_MAX_SMALL;
    data++;
    size--;
    r = frame_reader_new(max);
    memset(&w, 0, sizeof(w));
    interval_window_init(&w, 3, 2, 1000000, on_second, NULL);
    for (size_t off = 0; off < size && !failed; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        Quern__Envelope *env;
        int rc;

        fed += n;
        if (frame_reader_feed(r, data + off, n, err, sizeof(err)) != 0) {
            fuzz_check(err[0] != '\0');
            fuzz_check(frame_reader_next(r, &env, err, sizeof(err)) == -1);
            fuzz_check(frame_reader_feed(r, data, 1, err, sizeof(err)) == -1);
            failed = 1;
            break;
        }
        fuzz_check(frame_reader_buffered(r) <= fed);
        while ((rc = frame_reader_next(r, &env, err, sizeof(err))) == 1) {
            handle(env, &w);
            roundtrip(env);
            quern__envelope__free_unpacked(env, NULL);
        }
        if (rc < 0)
            failed = 1; /* a malformed frame: the connection is closed */
    }
    interval_window_flush(&w, 0, 1);
    interval_window_free(&w);
    frame_reader_free(r);
    return 0;
}
