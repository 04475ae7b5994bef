/* pbcodec — dynamic protobuf encoder and decoder; see pbcodec.h. */
#include "worker/lua/pbcodec.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/wire/pbwire.h"

void pbbuf_free(pbbuf *b)
{
    xfree(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* The writers below say whether the bytes fit: 1 written, 0 past
 * PBCODEC_MAX_SIZE (b unchanged); the encoder turns a 0 into too_big's
 * message and -1. Room for n more bytes. */
static int room(pbbuf *b, size_t n)
{
    if (n > PBCODEC_MAX_SIZE - b->len)
        return 0;
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap : 64;
        while (c < b->len + n)
            c *= 2;
        b->p = xrealloc(b->p, c);
        b->cap = c;
    }
    return 1;
}

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static void varint_at(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p = (uint8_t)v;
}

static int put_varint(pbbuf *b, uint64_t v)
{
    size_t n = varint_len(v);
    if (!room(b, n))
        return 0;
    varint_at(b->p + b->len, v);
    b->len += n;
    return 1;
}

static int put_fixed(pbbuf *b, uint64_t v, size_t w)
{
    if (!room(b, w))
        return 0;
    for (size_t i = 0; i < w; i++)
        b->p[b->len++] = (uint8_t)(v >> (8 * i));
    return 1;
}

static int put_bytes(pbbuf *b, const void *p, size_t n)
{
    if (!put_varint(b, n) || !room(b, n))
        return 0;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 1;
}

/* Inserts the varint length of what was written since start before it. */
static int close_len(pbbuf *b, size_t start)
{
    size_t n = b->len - start, vn = varint_len(n);
    if (!room(b, vn))
        return 0;
    memmove(b->p + start + vn, b->p + start, n);
    varint_at(b->p + start, n);
    b->len += vn;
    return 1;
}

static int wiretype(int type)
{
    switch (type) {
    case PB_DOUBLE:
    case PB_FIXED64:
    case PB_SFIXED64:
        return 1;
    case PB_FLOAT:
    case PB_FIXED32:
    case PB_SFIXED32:
        return 5;
    case PB_STRING:
    case PB_BYTES:
    case PB_MESSAGE:
        return 2;
    default:
        return 0;
    }
}

static const char *type_word(int type)
{
    switch (type) {
    case PB_DOUBLE:
    case PB_FLOAT:
        return "a number";
    case PB_BOOL:
        return "a boolean";
    case PB_STRING:
    case PB_BYTES:
        return "a string";
    case PB_MESSAGE:
        return "a table";
    case PB_ENUM:
        return "an enum name or number";
    default:
        return "an integer";
    }
}

typedef struct enc {
    lua_State *L;      /* borrowed: the state whose table is encoded */
    const pbschema *s; /* borrowed: the messages */
    pbbuf *b;          /* borrowed: where the bytes go */
    char *err;         /* borrowed: the caller's, errlen bytes */
    size_t errlen;
} enc;

static int enc_msg(enc *e, int idx, int mi, int depth);

static int too_big(enc *e)
{
    err_set(e->err, e->errlen, "message larger than %u bytes", PBCODEC_MAX_SIZE);
    return -1;
}

/* 0 when a writer's bytes fit (put 1), else too_big's -1. */
static int fits(enc *e, int put)
{
    return put ? 0 : too_big(e);
}

static int wrong(enc *e, const pbmsg *m, const pbfield *f, const char *what)
{
    err_set(e->err, e->errlen, "field '%s' of %s: %s", f->name, m->name, what);
    return -1;
}

/* Writes the payload (no tag) of the scalar value at idx for field f. */
static int enc_scalar(enc *e, int idx, const pbmsg *m, const pbfield *f)
{
    lua_State *L = e->L;
    int isint = 0, t = lua_type(L, idx);
    lua_Integer i = 0;
    char what[96];

    snprintf(what, sizeof(what), "%s expected, got %s", type_word(f->type), luaL_typename(L, idx));
    if (f->type == PB_DOUBLE || f->type == PB_FLOAT) {
        if (t != LUA_TNUMBER)
            return wrong(e, m, f, what);
        double d = lua_tonumber(L, idx);
        if (f->type == PB_DOUBLE) {
            uint64_t u;
            memcpy(&u, &d, 8);
            return fits(e, put_fixed(e->b, u, 8));
        }
        float fl = (float)d;
        uint32_t u;
        memcpy(&u, &fl, 4);
        return fits(e, put_fixed(e->b, u, 4));
    }
    if (f->type == PB_BOOL) {
        if (t != LUA_TBOOLEAN)
            return wrong(e, m, f, what);
        return fits(e, put_varint(e->b, (uint64_t)lua_toboolean(L, idx)));
    }
    if (f->type == PB_STRING || f->type == PB_BYTES) {
        size_t n;
        if (t != LUA_TSTRING)
            return wrong(e, m, f, what);
        const char *p = lua_tolstring(L, idx, &n);
        return fits(e, put_bytes(e->b, p, n));
    }
    if (f->type == PB_ENUM && t == LUA_TSTRING) {
        const pbenum *en = &e->s->enums[f->enm];
        const char *name = lua_tostring(L, idx);
        for (size_t k = 0; k < en->nvalues; k++)
            if (strcmp(en->values[k].name, name) == 0)
                return fits(e, put_varint(e->b, (uint64_t)(int64_t)en->values[k].number));
        snprintf(what, sizeof(what), "%s is not a value of %s", name, en->name);
        return wrong(e, m, f, what);
    }
    if (t == LUA_TNUMBER)
        i = lua_tointegerx(L, idx, &isint);
    if (!isint) {
        if (t == LUA_TNUMBER)
            snprintf(what, sizeof(what), "%s expected, got a number with a fraction",
                     type_word(f->type));
        return wrong(e, m, f, what);
    }
    switch (f->type) {
    case PB_INT32:
    case PB_SINT32:
    case PB_SFIXED32:
    case PB_ENUM:
        if (i < INT32_MIN || i > INT32_MAX)
            return wrong(e, m, f, "out of the range of a 32-bit signed integer");
        break;
    case PB_UINT32:
    case PB_FIXED32:
        if (i < 0 || i > (lua_Integer)UINT32_MAX)
            return wrong(e, m, f, "out of the range of a 32-bit unsigned integer");
        break;
    default:
        break;
    }
    switch (f->type) {
    case PB_SINT32:
    case PB_SINT64: /* zigzag: a small magnitude, whatever the sign, is a short varint */
        return fits(e, put_varint(e->b, ((uint64_t)i << 1) ^ (uint64_t)(i >> 63)));
    case PB_FIXED32:
    case PB_SFIXED32:
        return fits(e, put_fixed(e->b, (uint32_t)i, 4));
    case PB_FIXED64:
    case PB_SFIXED64:
        return fits(e, put_fixed(e->b, (uint64_t)i, 8));
    default: /* int32 and enum negatives are 10-byte varints, as the spec says */
        return fits(e, put_varint(e->b, (uint64_t)i));
    }
}

/* Writes field f (tag and value) for the value at idx, one element. */
static int enc_one(enc *e, int idx, const pbmsg *m, const pbfield *f, int depth)
{
    if (!put_varint(e->b, ((uint64_t)f->number << 3) | (uint64_t)wiretype(f->type)))
        return too_big(e);
    if (f->type != PB_MESSAGE)
        return enc_scalar(e, idx, m, f);
    if (!lua_istable(e->L, idx))
        return wrong(e, m, f, "a table expected");
    size_t start = e->b->len;
    if (enc_msg(e, idx, f->msg, depth + 1) != 0)
        return -1;
    return fits(e, close_len(e->b, start));
}

static int enc_map(enc *e, int idx, const pbmsg *m, const pbfield *f, int depth)
{
    lua_State *L = e->L;
    const pbmsg *em = &e->s->msgs[f->msg];
    const pbfield *kf = pbschema_field_num(em, 1), *vf = pbschema_field_num(em, 2);

    if (kf == NULL || vf == NULL)
        return wrong(e, m, f, "map entry without key or value");
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int top = lua_gettop(L);
        size_t start;
        if (!put_varint(e->b, ((uint64_t)f->number << 3) | 2))
            goto big;
        start = e->b->len;
        if (enc_one(e, top - 1, em, kf, depth + 1) != 0 || enc_one(e, top, em, vf, depth + 1) != 0)
            goto fail;
        if (!close_len(e->b, start))
            goto big;
        lua_pop(L, 1);
    }
    return 0;
big:
    too_big(e);
fail:
    lua_pop(L, 2);
    return -1;
}

static int enc_repeated(enc *e, int idx, const pbmsg *m, const pbfield *f, int depth)
{
    lua_State *L = e->L;
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    size_t start = 0;

    if (n == 0)
        return 0;
    if (f->packed) {
        if (!put_varint(e->b, ((uint64_t)f->number << 3) | 2))
            return too_big(e);
        start = e->b->len;
    }
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        int rc =
            f->packed ? enc_scalar(e, lua_gettop(L), m, f) : enc_one(e, lua_gettop(L), m, f, depth);
        lua_pop(L, 1);
        if (rc != 0)
            return -1;
    }
    return f->packed ? fits(e, close_len(e->b, start)) : 0;
}

static int enc_msg(enc *e, int idx, int mi, int depth)
{
    lua_State *L = e->L;
    const pbmsg *m = &e->s->msgs[mi];

    if (depth > PBCODEC_MAX_DEPTH) {
        err_set(e->err, e->errlen, "messages nested deeper than %d", PBCODEC_MAX_DEPTH);
        return -1;
    }
    if (!lua_checkstack(L, 8)) {
        err_set(e->err, e->errlen, "out of Lua stack");
        return -1;
    }
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int v = lua_gettop(L), rc;
        const pbfield *f = NULL;
        if (lua_type(L, v - 1) == LUA_TSTRING) {
            size_t kn;
            const char *k = lua_tolstring(L, v - 1, &kn);
            f = pbschema_field(m, k, kn);
            if (f == NULL)
                err_set(e->err, e->errlen, "unknown field '%s' in %s", k, m->name);
        } else
            err_set(e->err, e->errlen, "a %s key in %s: field names are strings",
                    luaL_typename(L, v - 1), m->name);
        if (f == NULL) {
            lua_pop(L, 2);
            return -1;
        }
        int is_map = f->type == PB_MESSAGE && e->s->msgs[f->msg].map_entry;
        if ((f->repeated || is_map) && !lua_istable(L, v))
            rc = wrong(e, m, f, is_map ? "a table (map) expected" : "a table (list) expected");
        else if (is_map)
            rc = enc_map(e, v, m, f, depth);
        else if (f->repeated)
            rc = enc_repeated(e, v, m, f, depth);
        else
            rc = enc_one(e, v, m, f, depth);
        if (rc != 0) {
            lua_pop(L, 2);
            return -1;
        }
        lua_pop(L, 1);
    }
    return 0;
}

int pbcodec_encode(lua_State *L, int idx, const pbschema *s, int msg, pbbuf *b, char *err,
                   size_t errlen)
{
    enc e = {L, s, b, err, errlen};
    int top = lua_gettop(L), rc;

    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx)) {
        err_set(err, errlen, "%s: a table expected, got %s", s->msgs[msg].name,
                luaL_typename(L, idx));
        return -1;
    }
    rc = enc_msg(&e, idx, msg, 0);
    lua_settop(L, top);
    return rc;
}

/* ---- decoding ---- */

typedef struct dec {
    lua_State *L;      /* borrowed: the state the table is pushed on */
    const pbschema *s; /* borrowed: the messages */
    char *err;         /* borrowed: the caller's, errlen bytes */
    size_t errlen;
} dec;

static int dec_msg(dec *d, int mi, const uint8_t *p, size_t n, int depth);

static void push_enum(dec *d, const pbfield *f, int32_t v)
{
    const pbenum *en = &d->s->enums[f->enm];
    for (size_t k = 0; k < en->nvalues; k++)
        if (en->values[k].number == v) {
            lua_pushstring(d->L, en->values[k].name);
            return;
        }
    lua_pushinteger(d->L, v);
}

/* Pushes the scalar of field f whose raw value is v. */
static void push_scalar(dec *d, const pbfield *f, uint64_t v)
{
    lua_State *L = d->L;
    switch (f->type) {
    case PB_DOUBLE: {
        double x;
        memcpy(&x, &v, 8);
        lua_pushnumber(L, x);
        break;
    }
    case PB_FLOAT: {
        uint32_t u = (uint32_t)v;
        float x;
        memcpy(&x, &u, 4);
        lua_pushnumber(L, x);
        break;
    }
    case PB_BOOL:
        lua_pushboolean(L, v != 0);
        break;
    case PB_INT32:
    case PB_SFIXED32:
        lua_pushinteger(L, (int32_t)(uint32_t)v);
        break;
    case PB_UINT32:
    case PB_FIXED32:
        lua_pushinteger(L, (uint32_t)v);
        break;
    case PB_SINT32: {
        uint32_t u = (uint32_t)v;
        lua_pushinteger(L, (int32_t)((u >> 1) ^ (0u - (u & 1))));
        break;
    }
    case PB_SINT64:
        lua_pushinteger(L, (lua_Integer)((v >> 1) ^ (0 - (v & 1))));
        break;
    case PB_ENUM:
        push_enum(d, f, (int32_t)(uint32_t)v);
        break;
    default: /* int64, uint64, fixed64, sfixed64: the 64 bits as they are */
        lua_pushinteger(L, (lua_Integer)v);
        break;
    }
}

/* Pushes the default of a field without presence; 0, or -1 having pushed
 * nothing. */
static int push_default(dec *d, const pbfield *f, int depth)
{
    lua_State *L = d->L;
    if (f->repeated) {
        lua_newtable(L);
        return 0;
    }
    switch (f->type) {
    case PB_STRING:
    case PB_BYTES:
        lua_pushliteral(L, "");
        return 0;
    case PB_MESSAGE:
        lua_newtable(L);
        if (dec_msg(d, f->msg, NULL, 0, depth + 1) != 0) {
            lua_pop(L, 1);
            return -1;
        }
        return 0;
    case PB_ENUM:
        lua_pushstring(L, d->s->enums[f->enm].values[0].name);
        return 0;
    default:
        push_scalar(d, f, 0);
        return 0;
    }
}

static int bad(dec *d, const pbmsg *m, const pbfield *f, const char *what)
{
    if (f)
        err_set(d->err, d->errlen, "%s.%s: %s", m->name, f->name, what);
    else
        err_set(d->err, d->errlen, "%s: %s", m->name, what);
    return -1;
}

/* The table of repeated field f in the table at t, made if absent, pushed. */
static void push_list(dec *d, int t, const pbfield *f)
{
    lua_State *L = d->L;
    if (lua_getfield(L, t, f->name) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, t, f->name);
    }
}

static void append(lua_State *L, int list)
{
    lua_rawseti(L, list, (lua_Integer)lua_rawlen(L, list) + 1);
}

static int dec_map_entry(dec *d, int t, const pbmsg *m, const pbfield *f, const pbwire_field *w,
                         int depth)
{
    lua_State *L = d->L;
    const pbmsg *em = &d->s->msgs[f->msg];
    const pbfield *kf = pbschema_field_num(em, 1), *vf = pbschema_field_num(em, 2);

    if (kf == NULL || vf == NULL || kf->type == PB_MESSAGE || kf->type == PB_FLOAT ||
        kf->type == PB_DOUBLE || kf->type == PB_BYTES)
        return bad(d, m, f, "map entry without a usable key or value");
    push_list(d, t, f);
    lua_newtable(L);
    if (dec_msg(d, f->msg, w->p, w->n, depth + 1) != 0) {
        lua_pop(L, 2);
        return -1;
    }
    lua_getfield(L, -1, kf->name);
    if (lua_getfield(L, -2, vf->name) == LUA_TNIL) {
        lua_pop(L, 1);
        if (push_default(d, vf, depth + 1) != 0) {
            lua_pop(L, 3);
            return -1;
        }
    }
    lua_settable(L, -4);
    lua_pop(L, 2);
    return 0;
}

/* Field f (a member of a oneof) was just set: the other members go. */
static void clear_oneof(dec *d, int t, const pbmsg *m, const pbfield *f)
{
    for (size_t i = 0; i < m->nfields; i++)
        if (&m->fields[i] != f && m->fields[i].oneof == f->oneof && m->fields[i].presence) {
            lua_pushnil(d->L);
            lua_setfield(d->L, t, m->fields[i].name);
        }
}

static int dec_field(dec *d, int t, const pbmsg *m, const pbfield *f, const pbwire_field *w,
                     int depth)
{
    lua_State *L = d->L;
    int want = wiretype(f->type);

    if (f->type == PB_MESSAGE && d->s->msgs[f->msg].map_entry && w->wt == 2)
        return dec_map_entry(d, t, m, f, w, depth);
    if (f->repeated && want != 2 && w->wt == 2) { /* packed */
        pbwire r = {w->p, w->p + w->n};
        push_list(d, t, f);
        int list = lua_gettop(L);
        while (r.p < r.end) {
            uint64_t v = 0;
            if (want == 0) {
                if (!pbwire_varint(&r, &v)) {
                    lua_pop(L, 1);
                    return bad(d, m, f, "truncated packed varint");
                }
            } else {
                size_t k = want == 1 ? 8 : 4;
                if ((size_t)(r.end - r.p) < k) {
                    lua_pop(L, 1);
                    return bad(d, m, f, "truncated packed value");
                }
                for (size_t i = 0; i < k; i++)
                    v |= (uint64_t)r.p[i] << (8 * i);
                r.p += k;
            }
            push_scalar(d, f, v);
            append(L, list);
        }
        lua_pop(L, 1);
        return 0;
    }
    if (w->wt != want)
        return bad(d, m, f, "wire type does not match the field's type");
    if (f->repeated)
        push_list(d, t, f);
    if (f->type == PB_MESSAGE) {
        /* a singular message seen twice is merged, as the spec says */
        if (f->repeated || lua_getfield(L, t, f->name) != LUA_TTABLE) {
            if (!f->repeated)
                lua_pop(L, 1);
            lua_newtable(L);
        }
        if (dec_msg(d, f->msg, w->p, w->n, depth + 1) != 0) {
            lua_pop(L, f->repeated ? 2 : 1);
            return -1;
        }
    } else if (w->wt == 2)
        lua_pushlstring(L, (const char *)w->p, w->n);
    else
        push_scalar(d, f, w->v);
    if (f->repeated) {
        append(L, lua_gettop(L) - 1);
        lua_pop(L, 1);
    } else {
        lua_setfield(L, t, f->name);
        if (f->oneof >= 0)
            clear_oneof(d, t, m, f);
    }
    return 0;
}

/* Decodes message mi from p into the table on top of the stack. */
static int dec_msg(dec *d, int mi, const uint8_t *p, size_t n, int depth)
{
    static const uint8_t none[1];
    lua_State *L = d->L;
    const pbmsg *m = &d->s->msgs[mi];
    pbwire r = {p ? p : none, (p ? p : none) + n}; /* NULL + 0 is undefined */
    pbwire_field w;
    int k, t = lua_gettop(L);

    if (depth > PBCODEC_MAX_DEPTH)
        return bad(d, m, NULL, "messages nested too deep");
    if (!lua_checkstack(L, 8))
        return bad(d, m, NULL, "out of Lua stack");
    while ((k = pbwire_next(&r, &w)) > 0) {
        const pbfield *f = pbschema_field_num(m, w.num);
        if (f != NULL && dec_field(d, t, m, f, &w, depth) != 0)
            return -1;
    }
    if (k < 0)
        return bad(d, m, NULL, "truncated or malformed message");
    for (size_t i = 0; i < m->nfields; i++) {
        const pbfield *f = &m->fields[i];
        if (f->presence)
            continue;
        if (lua_getfield(L, t, f->name) == LUA_TNIL) {
            lua_pop(L, 1);
            if (push_default(d, f, depth) != 0)
                return -1;
            lua_setfield(L, t, f->name);
        } else
            lua_pop(L, 1);
    }
    return 0;
}

int pbcodec_decode(lua_State *L, const pbschema *s, int msg, const uint8_t *p, size_t len,
                   char *err, size_t errlen)
{
    dec d = {L, s, err, errlen};
    int top = lua_gettop(L);

    if (len > PBCODEC_MAX_SIZE) {
        err_set(err, errlen, "message larger than %u bytes", PBCODEC_MAX_SIZE);
        return -1;
    }
    lua_newtable(L);
    if (dec_msg(&d, msg, p, len, 0) != 0) {
        lua_settop(L, top);
        return -1;
    }
    return 0;
}
