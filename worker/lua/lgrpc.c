/* lgrpc — gRPC from Lua; see lgrpc.h. */
#include "worker/lua/lgrpc.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/wire/urlc.h"
#include "worker/engine/vu.h"
#include "worker/wire/grpc.h"
#include "worker/wire/grpczip.h"
#include "worker/engine/inflight.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lcodec.h"
#include "worker/lua/lgstream.h"
#include "worker/lua/lquern.h"
#include "worker/engine/lscript.h"
#include "worker/plugs/pageres.h"
#include "worker/lua/pbcodec.h"
#include "worker/lua/lreqopt.h"
#include "worker/wire/reqopt.h"
#include "worker/plugs/trace.h"

extern char **environ;

enum { CTX_THINK = 1, CTX_XFER = 2, CTX_SLOT = 3 };

/* Largest descriptor set read (bytes). */
#define SET_MAX (8u << 20)

static const char schema_key; /* its address files the schema userdata */

/* --- the schema, one per Lua state ----------------------------------------- */

typedef struct schema_ud {
    pbschema *s; /**< owned */
    grpczip *z;  /**< owned: the state's gzip context, NULL until a message needs it */
} schema_ud;

static int set_gc(lua_State *L)
{
    schema_ud *u = lua_touserdata(L, 1);
    pbschema_free(u->s);
    u->s = NULL;
    grpczip_free(u->z);
    u->z = NULL;
    return 0;
}

/* The state's schema userdata, made empty on first use. */
static schema_ud *ud_of(lua_State *L);

static pbschema *set_of(lua_State *L)
{
    return ud_of(L)->s;
}

grpczip *lgrpc_zip(lua_State *L)
{
    schema_ud *u = ud_of(L);

    if (u->z == NULL)
        u->z = grpczip_new();
    return u->z;
}

static schema_ud *ud_of(lua_State *L)
{
    schema_ud *u;

    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &schema_key) == LUA_TUSERDATA) {
        u = lua_touserdata(L, -1);
        lua_pop(L, 1);
        return u;
    }
    lua_pop(L, 1);
    u = lua_newuserdatauv(L, sizeof(*u), 0);
    u->s = pbschema_new();
    u->z = NULL;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, set_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &schema_key);
    return u;
}

/* Reads the whole file path (at most SET_MAX bytes) into a new buffer. */
static uint8_t *read_all(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b;
    size_t n = 0;

    if (f == NULL) {
        err_set(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    b = xmalloc(SET_MAX + 1);
    n = fread(b, 1, SET_MAX + 1, f);
    fclose(f);
    if (n > SET_MAX) {
        xfree(b);
        err_set(err, errlen, "%s is larger than %u bytes", path, SET_MAX);
        return NULL;
    }
    *len = n;
    return b;
}

/* Runs protoc on name (relative to dir) into a temporary descriptor set and
 * returns its bytes; NULL with protoc's first message line (file:line:
 * message) in err. Only at load time: it waits for protoc. */
static uint8_t *compile(const char *dir, const char *name, size_t *len, char *err, size_t errlen)
{
    char out[] = "/tmp/quern-grpc-XXXXXX", msg[] = "/tmp/quern-grpc-err-XXXXXX";
    char inc[4200], set_arg[64];
    int ofd = mkstemp(out), efd = -1, status = 0;
    uint8_t *b = NULL;
    posix_spawn_file_actions_t fa;
    pid_t pid;

    if (ofd < 0 || (efd = mkstemp(msg)) < 0) {
        err_set(err, errlen, "cannot make a temporary file: %s", strerror(errno));
        goto out;
    }
    snprintf(inc, sizeof(inc), "-I%s", dir);
    snprintf(set_arg, sizeof(set_arg), "--descriptor_set_out=%s", out);
    char *argv[] = {"protoc", "--include_imports", set_arg, inc, (char *)name, NULL};
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, efd, 2);
    posix_spawn_file_actions_adddup2(&fa, efd, 1);
    if (posix_spawnp(&pid, "protoc", &fa, NULL, argv, environ) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        err_set(err, errlen,
                "%s: protoc not found (install protobuf-compiler, or give a descriptor set .pb)",
                name);
        goto out;
    }
    posix_spawn_file_actions_destroy(&fa);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char text[512];
        ssize_t n = pread(efd, text, sizeof(text) - 1, 0);
        text[n > 0 ? n : 0] = '\0';
        text[strcspn(text, "\n")] = '\0';
        err_set(err, errlen, "%s", text[0] ? text : "protoc failed");
        goto out;
    }
    b = read_all(out, len, err, errlen);
out:
    if (ofd >= 0) {
        close(ofd);
        unlink(out);
    }
    if (efd >= 0) {
        close(efd);
        unlink(msg);
    }
    return b;
}

static const char made_key; /* its address files the sets compiled here */

/* Keeps what compile() made, for the console to ship (lgrpc_made). */
static void keep_made(lua_State *L, const char *name, const uint8_t *b, size_t len)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &made_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &made_key);
    }
    lua_createtable(L, 2, 0);
    lua_pushfstring(L, "%s/%s.pb", LGRPC_DIR, name);
    lua_rawseti(L, -2, 1);
    lua_pushlstring(L, (const char *)b, len);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

int lgrpc_made(lua_State *L, size_t i, const char **path, const void **data, size_t *len)
{
    int top = lua_gettop(L), ok = 0;

    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &made_key) == LUA_TTABLE &&
        lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TTABLE) {
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        /* the registry's table keeps both strings alive */
        *path = lua_tostring(L, -2);
        *data = lua_tolstring(L, -1, len);
        ok = *path != NULL && *data != NULL;
    }
    lua_settop(L, top);
    return ok;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* grpc.load("svc.proto" | "set.pb", ...) */
static int l_load(lua_State *L)
{
    const char *dir = lscript_dir(L);
    pbschema *s;
    int n = lua_gettop(L);
    /* not ERR_MAX: a path of up to 4,200 bytes and why it cannot be read (tests/lint/errrule.allow)
     */
    char err[600], path[4200];

    if (vu_current(L) != NULL || engine_loaded(lapi_engine(L)))
        return luaL_error(L, "grpc.load is called when the script loads (at the top level)");
    if (n == 0)
        return luaL_error(L, "grpc.load: give the .proto or descriptor set (.pb) files");
    s = set_of(L);
    for (int i = 1; i <= n; i++) {
        const char *name = luaL_checkstring(L, i);
        uint8_t *b = NULL;
        size_t len = 0;
        struct stat st;
        if (ends_with(name, ".pb")) {
            reqopt_path(dir, name, path, sizeof(path));
            b = read_all(path, &len, err, sizeof(err));
        } else if (ends_with(name, ".proto")) {
            if (name[0] == '/' || strstr(name, "..") != NULL)
                return luaL_error(L, "grpc.load: %s: give a path inside the script's folder", name);
            snprintf(path, sizeof(path), "%s/%s/%s.pb", dir, LGRPC_DIR, name);
            if (stat(path, &st) == 0)
                b = read_all(path, &len, err, sizeof(err));
            else if ((b = compile(dir, name, &len, err, sizeof(err))) != NULL)
                keep_made(L, name, b, len);
        } else
            return luaL_error(L, "grpc.load: %s: a .proto or a descriptor set .pb expected", name);
        if (b == NULL)
            return luaL_error(L, "grpc.load: %s", err);
        if (pbschema_add(s, b, len, err, sizeof(err)) != 0) {
            xfree(b);
            return luaL_error(L, "grpc.load: %s: %s", name, err);
        }
        xfree(b);
    }
    return 0;
}

int lgrpc_open(lua_State *L)
{
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, l_load);
    lua_setfield(L, -2, "load");
    return 1;
}

/* --- a call: unary or a server stream ---------------------------------------- */

/* Adds one request header line. */
static void add_line(vu *v, const char *name, const char *value)
{
    char line[8192];
    snprintf(line, sizeof(line), "%s: %s", name, value);
    v->req_headers = curl_slist_append(v->req_headers, line);
    if (v->req_headers == NULL)
        xoom("curl_slist_append");
}

int lgrpc_gzip(lua_State *L)
{
    const char *c;
    int gzip = 0;

    if (!lua_istable(L, 5))
        return 0;
    if (lua_getfield(L, 5, "compression") != LUA_TNIL) {
        c = lua_tostring(L, -1);
        if (c != NULL && strcmp(c, "gzip") == 0)
            gzip = 1;
        else if (c == NULL || strcmp(c, "identity") != 0)
            luaL_error(L, "compression: \"gzip\" or \"identity\"");
    }
    lua_pop(L, 1);
    return gzip;
}

int lgrpc_inflate(lua_State *L, const uint8_t **msg, size_t *n, char *err, size_t errlen)
{
    int rc = grpczip_inflate(lgrpc_zip(L), *msg, *n, GRPC_MSG_MAX, msg, n, err, errlen);

    return rc == 0 ? GRPC_OK : rc == -2 ? GRPC_RESOURCE_EXHAUSTED : GRPC_INTERNAL;
}

int lgrpc_frame(lua_State *L, int gzip, const pbbuf *b, uint8_t pre[5], const uint8_t **msg,
                size_t *n, char *err, size_t errlen)
{
    *msg = b->p != NULL ? b->p : (const uint8_t *)"";
    *n = b->len;
    if (gzip && grpczip_deflate(lgrpc_zip(L), *msg, *n, msg, n, err, errlen) != 0)
        return -1;
    grpc_frame_header(pre, (uint32_t)*n, gzip);
    return 0;
}

/* Largest value of a -bin key (bytes): its base64 fits add_line's line. */
#define BIN_MAX 6000

/* The key at idx ends in -bin, its value at idx + 1: sent as base64,
 * unpadded (the spec's binary header; padding is optional on the wire). */
static void add_bin_line(lua_State *L, vu *v, int idx)
{
    size_t n, k;
    const char *val = lua_tolstring(L, idx + 1, &n);
    char enc[BIN_MAX / 3 * 4 + 8];

    if (n > BIN_MAX)
        luaL_error(L, "metadata: %s: a binary value of at most %d bytes", lua_tostring(L, idx),
                   BIN_MAX);
    k = lcodec_b64(enc, (const unsigned char *)val, n);
    while (k > 0 && enc[k - 1] == '=')
        enc[--k] = '\0';
    add_line(v, lua_tostring(L, idx), enc);
}

struct curl_slist *lgrpc_prepare(lua_State *L, vu *v, char *url, size_t urllen, long *curl_ms,
                                 int *deadline)
{
    const char *target = lua_tostring(L, 2), *method = lua_tostring(L, 3);
    const reqopt *sro = engine_scens(v->eng)->scens[v->scen]->req;
    int64_t timeout_us = -1;
    char tmo[16];
    struct curl_slist *list;

    *curl_ms = 60000;
    *deadline = 0;
    if (sro != NULL && (sro->set & REQOPT_TIMEOUT))
        *curl_ms = sro->timeout_ms;
    /* built in the VU's list: a Lua error midway leaks nothing */
    curl_slist_free_all(v->req_headers);
    v->req_headers = NULL;
    add_line(v, "Content-Type", "application/grpc");
    add_line(v, "TE", "trailers");
    add_line(v, "User-Agent", "quern-grpc");
    add_line(v, "grpc-accept-encoding", "gzip"); /* compressed replies are read */
    if (lgrpc_gzip(L))
        add_line(v, "grpc-encoding", "gzip");
    if (lua_istable(L, 5)) {
        if (lua_getfield(L, 5, "timeout") != LUA_TNIL)
            timeout_us = lapi_check_duration(L, -1, "timeout");
        lua_pop(L, 1);
        if (lua_getfield(L, 5, "metadata") == LUA_TTABLE) {
            lua_pushnil(L);
            while (lua_next(L, -2) != 0) {
                if (lua_type(L, -2) != LUA_TSTRING ||
                    (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER))
                    luaL_error(L, "metadata: names and values must be strings");
                if (grpc_bin_key(lua_tostring(L, -2), lua_rawlen(L, -2)))
                    add_bin_line(L, v, -2);
                else
                    add_line(v, lua_tostring(L, -2), lua_tostring(L, -1));
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    if (timeout_us > 0) {
        /* The server is told the deadline; libcurl's bound is a little
         * later, so that the server's DEADLINE_EXCEEDED is what comes. */
        grpc_timeout(tmo, timeout_us);
        add_line(v, "grpc-timeout", tmo);
        *curl_ms = (long)(timeout_us / 1000) + 100 + (long)(timeout_us / 10000);
        *deadline = 1;
    }
    snprintf(url, urllen, "%s%s%s", target,
             target[0] && target[strlen(target) - 1] == '/' ? "" : "/", method);
    list = v->req_headers;
    v->req_headers = NULL;
    return list;
}

/* Stack: 1 step, 2 target, 3 method, 4 request, 5 opts|nil, 6 the body
 * (pushed by step_grpc), 7 the connection options (reqopt). Sets the handle up
 * and queues the transfer. */
static void start_xfer(lua_State *L, vu *v)
{
    const char *body;
    size_t body_len;
    const reqopt *sro = engine_scens(v->eng)->scens[v->scen]->req;
    const reqopt *rro = lua_touserdata(L, 7);
    long curl_ms;
    int deadline;
    char url[4200];
    CURL *h = vu_easy(v);

    v->req_headers = lgrpc_prepare(L, v, url, sizeof(url), &curl_ms, &deadline);
    body = lua_tolstring(L, 6, &body_len);
    curl_easy_setopt(h, CURLOPT_URL, url);
    v->url = NULL;
    curl_easy_setopt(h, CURLOPT_CURLU, NULL);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, (long)URLC_RECV_MAX);
    curl_easy_setopt(h, CURLOPT_NOBODY, 0L);
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, NULL);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, v->req_headers);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, curl_ms);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, -1L);
    reqopt_apply(h, &v->xh->ro, rro, sro, engine_run_reqopt(v->eng),
                 strncasecmp(url, "https:", 6) == 0, engine_env_ca(v->eng));
    if (engine_trace(v->eng) != NULL)
        trace_request(engine_trace(v->eng), v, h, "POST");
    pageres_want(v, NULL, NULL, curl_ms);
    vu_xfer_begin(v);
    v->wait = VU_XFER;
    engine_start_xfer(v->eng, v);
}

/* Pushes a header's value: a -bin key's decoded from base64 (a value
 * that is not base64 stays as it came). */
static void push_value(lua_State *L, const char *name, size_t nn, const char *val, size_t n)
{
    luaL_Buffer b;
    long k;

    if (!grpc_bin_key(name, nn)) {
        lua_pushlstring(L, val, n);
        return;
    }
    k = lcodec_unb64((unsigned char *)luaL_buffinitsize(L, &b, n + 1), val, n);
    if (k < 0) {
        luaL_pushresultsize(&b, 0);
        lua_pop(L, 1);
        lua_pushlstring(L, val, n);
        return;
    }
    luaL_pushresultsize(&b, (size_t)k);
}

void lgrpc_push_headers(lua_State *L, const char *p, const char *end)
{
    lua_newtable(L);
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end, *colon;
        if (le > p && le[-1] == '\r')
            le--;
        colon = memchr(p, ':', (size_t)(le - p));
        if (colon != NULL && colon > p && memcmp(p, "HTTP/", 5) != 0) {
            char name[256];
            size_t nn =
                (size_t)(colon - p) < sizeof(name) - 1 ? (size_t)(colon - p) : sizeof(name) - 1;
            const char *v = colon + 1;
            for (size_t i = 0; i < nn; i++)
                name[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]);
            name[nn] = '\0';
            while (v < le && (*v == ' ' || *v == '\t'))
                v++;
            push_value(L, name, nn, v, (size_t)(le - v));
            lua_setfield(L, -2, name);
        }
        p = eol ? eol + 1 : end;
    }
}

/* The gRPC status of the finished transfer, its message in msg. */
static int call_status(vu *v, const grpc_status *st, char *msg, size_t msglen)
{
    const xfer_result *x = &v->x;

    if (x->curl_rc == CURLE_OPERATION_TIMEDOUT) {
        err_set(msg, msglen, "%s", v->xh->errbuf[0] ? v->xh->errbuf : "timed out");
        return GRPC_DEADLINE_EXCEEDED;
    }
    if (x->curl_rc != CURLE_OK) {
        err_set(msg, msglen, "%s",
                v->xh->errbuf[0] ? v->xh->errbuf : curl_easy_strerror((CURLcode)x->curl_rc));
        return GRPC_UNAVAILABLE;
    }
    if (x->status != 200) {
        err_set(msg, msglen, "HTTP status %d", x->status);
        return grpc_from_http(x->status);
    }
    if (!st->found) {
        err_set(msg, msglen, "no grpc-status in the reply");
        return GRPC_INTERNAL;
    }
    err_set(msg, msglen, "%s", st->message);
    return st->code;
}

/* The pending sample takes a technical error, unless it has one. */
static void sample_error(vu *v, int status_err, const char *msg)
{
    sample *p = &v->pend;

    if (p->step < 0 || !v->xfer_timed)
        return;
    if (p->err == SAMPLE_OK) {
        p->err = SAMPLE_TECH;
        p->status_err = (uint8_t)status_err;
        err_set(p->msg, sizeof(p->msg), "%s", msg);
    } else if (p->status_err && !status_err) {
        p->status_err = 0; /* an HTTP status error that is also a bad reply */
    }
}

int lgrpc_status_arg(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TNUMBER)
        return (int)lua_tointeger(L, idx);
    if (lua_type(L, idx) == LUA_TSTRING) {
        int c = grpc_status_code(lua_tostring(L, idx));
        if (c < 0)
            return luaL_error(L, "expect: unknown gRPC status \"%s\"", lua_tostring(L, idx));
        return c;
    }
    return luaL_error(L, "expect: give a gRPC status (a name or a number) or a list of them");
}

/* r:expect("OK" | 5 | {"OK", "NOT_FOUND"}); upvalues: the sample's seq, step. */
static int r_expect(lua_State *L)
{
    vu *v = vu_current(L);
    uint32_t seq = (uint32_t)lua_tointeger(L, lua_upvalueindex(1));
    int sidx = (int)lua_tointeger(L, lua_upvalueindex(2));
    int status, ok = 0;
    char msg[VU_MSG_MAX];

    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "status");
    status = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (lua_istable(L, 2)) {
        for (lua_Integer i = 1, n = luaL_len(L, 2); i <= n && !ok; i++) {
            lua_geti(L, 2, i);
            ok = lgrpc_status_arg(L, -1) == status;
            lua_pop(L, 1);
        }
    } else
        ok = lgrpc_status_arg(L, 2) == status;
    if (ok) {
        if (v != NULL && seq != 0 && v->pend.seq == seq && v->pend.status_err) {
            v->pend.err = SAMPLE_OK;
            v->pend.status_err = 0;
            v->pend.msg[0] = '\0';
        }
        lua_settop(L, 1);
        return 1;
    }
    lua_getfield(L, 1, "error");
    err_set(msg, sizeof(msg), "unexpected gRPC status %s%s%s", grpc_status_name(status),
            lua_isstring(L, -1) ? ": " : "", lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
    return vu_check_fail(L, v, sidx,
                         v != NULL && seq != 0 && v->pend.step >= 0 && v->pend.seq == seq, 1, msg);
}

/* Pushes the response table of the finished unary call. */
static int push_reply(lua_State *L, vu *v, const pbmethod *m)
{
    const char *hdr = v->xh->hdr.p ? v->xh->hdr.p : "";
    size_t hlen = v->xh->hdr.len;
    const uint8_t *body = (const uint8_t *)(v->xh->body.p ? v->xh->body.p : "");
    size_t blen = v->xh->body.len, used = 0, n = 0;
    const uint8_t *msg = NULL;
    const char *split;
    grpc_status st;
    char why[VU_MSG_MAX], err[ERR_MAX];
    int status, k;

    grpc_status_read(hdr, hlen, &st);
    status = call_status(v, &st, why, sizeof(why));
    lua_createtable(L, 0, 9);
    /* headers up to the blank line, trailers after it */
    split = memmem(hdr, hlen, "\r\n\r\n", 4);
    if (status == GRPC_OK) {
        int z = 0, z2 = 0, bad = GRPC_INTERNAL;
        /* the message: one, and only one, in a unary reply that is OK */
        k = grpc_frame_next(body, blen, &used, &msg, &n, &z, err, sizeof(err));
        if (k == 1 && grpc_frame_next(body, blen, &used, &msg, &n, &z2, err, sizeof(err)) != 0)
            err_set(err, sizeof(err), "more than one message in a unary reply"), k = -1;
        else if (k == 0)
            err_set(err, sizeof(err), "no message in the reply"), k = -1;
        if (k == 1 && z &&
            grpc_encoding_read(hdr, split ? (size_t)(split - hdr) : hlen) != GRPC_ENC_GZIP)
            err_set(err, sizeof(err), "a compressed message, but grpc-encoding is not gzip"),
                k = -1;
        else if (k == 1 && z && (bad = lgrpc_inflate(L, &msg, &n, err, sizeof(err))) != GRPC_OK)
            k = -1;
        if (k == 1 && pbcodec_decode(L, set_of(L), m->out, msg, n, err, sizeof(err)) != 0)
            k = -1, bad = GRPC_INTERNAL;
        if (k < 0) {
            status = bad;
            err_set(why, sizeof(why), "%s", err);
        } else
            lua_setfield(L, -2, "message");
    }
    lua_pushinteger(L, status);
    lua_setfield(L, -2, "status");
    lua_pushstring(L, grpc_status_name(status));
    lua_setfield(L, -2, "status_name");
    if (status != GRPC_OK) {
        lua_pushstring(L, why);
        lua_setfield(L, -2, "error");
    }
    lua_pushnumber(L, (double)v->x.fig.elapsed_us / 1000.0);
    lua_setfield(L, -2, "time");
    lgrpc_push_headers(L, hdr, split ? split + 2 : hdr + hlen);
    lua_setfield(L, -2, "headers");
    lgrpc_push_headers(L, split ? split + 4 : hdr + hlen, hdr + hlen);
    lua_setfield(L, -2, "trailers");
    lua_pushinteger(L, v->xfer_timed && v->pend.step >= 0 ? v->pend.seq : 0);
    lua_pushinteger(L, v->xfer_timed ? v->pend.step : -1);
    lua_pushcclosure(L, r_expect, 2);
    lua_setfield(L, -2, "expect");
    if (status != GRPC_OK) {
        char m2[VU_MSG_MAX];
        snprintf(m2, sizeof(m2), "gRPC status %s%s%s", grpc_status_name(status), why[0] ? ": " : "",
                 why);
        /* a reply the client could not read is no status a script may accept */
        sample_error(v, status != GRPC_INTERNAL || st.found, m2);
    }
    return 1;
}

static int call_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    const pbmethod *m = lua_touserdata(L, 8);

    if (ctx == CTX_THINK) {
        vu_sample_begin(v, lquern_step_index(L, 1));
        if (m->server_streaming || m->client_streaming)
            return lgstream_start(L, v, m, set_of(L));
        v->xfer_timed = 1;
        if (inflight_wait(v))
            return lua_yieldk(L, 0, CTX_SLOT, call_k);
        start_xfer(L, v);
        return lua_yieldk(L, 0, CTX_XFER, call_k);
    }
    if (ctx == CTX_SLOT) {
        inflight_took(v);
        start_xfer(L, v);
        return lua_yieldk(L, 0, CTX_XFER, call_k);
    }
    curl_easy_setopt(v->xh->easy, CURLOPT_POSTFIELDS, NULL); /* the body goes with the stack */
    return push_reply(L, v, m);
}

/* step:grpc(target, method, request, opts) and step:grpc_stream(...):
 * upvalue 1 is 1 for the stream. */
static int step_grpc(lua_State *L)
{
    int stream = (int)lua_tointeger(L, lua_upvalueindex(1));
    const char *fn = stream ? "grpc_stream" : "grpc";
    vu *v = lapi_request_vu(L, "gRPC calls", "are made", fn);
    pbschema *s;
    const pbmethod *m;
    pbbuf b = {0};
    uint8_t pre[5];
    char err[ERR_MAX];
    const char *target;
    reqopt *ro;
    scen *sc;

    if (v->halting)
        return lapi_halt(L, v);
    target = luaL_checkstring(L, 2);
    luaL_checkstring(L, 3);
    if (!lua_isnil(L, 4)) /* nil: a client stream's first message is sent later */
        luaL_checktype(L, 4, LUA_TTABLE);
    if (!lua_isnoneornil(L, 5))
        luaL_checktype(L, 5, LUA_TTABLE);
    lua_settop(L, 5);
    if (strncmp(target, "http://", 7) != 0 && strncmp(target, "https://", 8) != 0)
        return luaL_error(L, "%s: the target is http://host:port or https://host:port, not %s", fn,
                          target);
    s = set_of(L);
    m = pbschema_method(s, lua_tostring(L, 3));
    if (m == NULL)
        return luaL_error(L, "grpc: no method %s in the files grpc.load read", lua_tostring(L, 3));
    if ((m->server_streaming || m->client_streaming) != stream)
        return luaL_error(L, "%s: %s is %s method: call it with step:%s", fn, m->path,
                          stream ? "a unary" : "a streaming", stream ? "grpc" : "grpc_stream");
    if (lua_isnil(L, 4) && !m->client_streaming)
        return luaL_error(L, "%s: %s takes one request message (a table)", fn, m->path);
    if (lua_istable(L, 5)) {
        lua_pushnil(L);
        while (lua_next(L, 5) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            if (strcmp(k, "metadata") != 0 && strcmp(k, "timeout") != 0 && strcmp(k, "tls") != 0 &&
                strcmp(k, "resolve") != 0 && strcmp(k, "connect_timeout") != 0 &&
                strcmp(k, "compression") != 0)
                luaL_error(L,
                           "unknown gRPC option \"%s\" (known: metadata, timeout, compression, "
                           "tls, resolve, connect_timeout)",
                           k);
            lua_pop(L, 1);
        }
    }
    /* 6: the body, 5-byte prefix and message ("" when a client stream
     * starts without one) */
    if (lua_isnil(L, 4))
        lua_pushliteral(L, "");
    else if (pbcodec_encode(L, 4, s, m->in, &b, err, sizeof(err)) != 0) {
        pbbuf_free(&b);
        return luaL_error(L, "grpc: %s", err);
    } else {
        const uint8_t *msg;
        size_t n;
        if (lgrpc_frame(L, lgrpc_gzip(L), &b, pre, &msg, &n, err, sizeof(err)) != 0) {
            pbbuf_free(&b);
            return luaL_error(L, "grpc: %s", err);
        }
        lua_pushlstring(L, (const char *)pre, 5);
        lua_pushlstring(L, (const char *)msg, n);
        lua_concat(L, 2);
        pbbuf_free(&b);
    }
    /* 7: the connection options: HTTP/2 (prior knowledge on http://, ALPN
     * on https://), no Accept-Encoding, and the call's tls and resolve */
    lua_createtable(L, 0, 5);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "http2");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "compressed");
    if (lua_istable(L, 5)) {
        static const char *const keys[] = {"tls", "resolve", "connect_timeout"};
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
            lua_getfield(L, 5, keys[i]);
            lua_setfield(L, -2, keys[i]);
        }
    }
    ro = lreqopt_push(L);
    lreqopt_read(L, -2, lscript_dir(L), 0, ro, engine_run_reqopt(v->eng), 0);
    lua_replace(L, -2);
    lua_pushlightuserdata(L, (void *)m); /* 8 */
    lquern_vu_step(L, v, 1);
    if (stream && !m->client_streaming) {
        /* the request is the stream's one message sent (a client stream
         * counts its messages as they go out: gstream.c) */
        int sidx = lquern_step_index(L, 1);
        size_t blen = lua_rawlen(L, 6);
        if (sidx >= 0 && (size_t)sidx < engine_scens(v->eng)->nsteps) {
            engine_step_stats(v->eng, sidx)->ws_sent++;
            engine_step_stats(v->eng, sidx)->ws_bytes_sent += blen - 5;
        }
    }
    if (!v->pend.in_block) {
        vu_finalize(v);
        sc = engine_scens(v->eng)->scens[v->scen];
        if (v->steps_in_run > 0 && sc->think_max_us > 0) {
            vu_wait_timer(v, engine_rand_range(v->eng, sc->think_min_us, sc->think_max_us),
                          VU_THINK);
            return lua_yieldk(L, 0, CTX_THINK, call_k);
        }
        vu_sample_begin(v, lquern_step_index(L, 1));
    }
    if (stream) /* on a handle of its own, while the script runs (gstream.h) */
        return lgstream_start(L, v, m, s);
    v->xfer_timed = 1;
    if (inflight_wait(v))
        return lua_yieldk(L, 0, CTX_SLOT, call_k);
    start_xfer(L, v);
    return lua_yieldk(L, 0, CTX_XFER, call_k);
}

void lgrpc_register(lua_State *L, int methods)
{
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, step_grpc, 1);
    lua_setfield(L, methods, "grpc");
    lua_pushinteger(L, 1);
    lua_pushcclosure(L, step_grpc, 1);
    lua_setfield(L, methods, "grpc_stream");
    lgstream_register(L);
}
