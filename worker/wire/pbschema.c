/* pbschema — the descriptor set read into an index; see pbschema.h. */
#include "worker/wire/pbschema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/wire/pbwire.h"

static char *wstr(const pbwire_field *f)
{
    return xstrndup((const char *)f->p, f->n);
}

/* "pkg" + "." + "name" (or just name when scope is empty). */
static char *join(const char *scope, const char *name)
{
    size_t a = strlen(scope), b = strlen(name);
    char *s = xmalloc(a + b + 2);
    if (a) {
        memcpy(s, scope, a);
        s[a++] = '.';
    }
    memcpy(s + a, name, b + 1);
    return s;
}

#define BAD(msg)                                                                                   \
    do {                                                                                           \
        err_set(err, errlen, "descriptor set: %s", msg);                                           \
        goto fail;                                                                                 \
    } while (0)

static int read_enum(pbschema *s, const char *scope, const uint8_t *p, size_t n, char *err,
                     size_t errlen)
{
    pbwire r = {p, p + n}, v;
    pbwire_field f, g;
    int k;
    char *name = NULL;
    pbenum *e;

    while ((k = pbwire_next(&r, &f)) > 0)
        if (f.num == 1 && f.wt == 2) {
            xfree(name);
            name = wstr(&f);
        }
    if (k < 0 || name == NULL)
        BAD("malformed enum");
    s->enums = xreallocarray(s->enums, (s->nenums + 1), sizeof(*s->enums));
    e = &s->enums[s->nenums++];
    memset(e, 0, sizeof(*e));
    e->name = join(scope, name);
    xfree(name);
    name = NULL;
    r = (pbwire){p, p + n};
    while (pbwire_next(&r, &f) > 0) {
        if (f.num != 2 || f.wt != 2)
            continue;
        pbenumval ev = {NULL, 0};
        v = (pbwire){f.p, f.p + f.n};
        while ((k = pbwire_next(&v, &g)) > 0) {
            if (g.num == 1 && g.wt == 2) {
                xfree(ev.name);
                ev.name = wstr(&g);
            } else if (g.num == 2 && g.wt == 0)
                ev.number = (int32_t)g.v;
        }
        if (k < 0 || ev.name == NULL) {
            xfree(ev.name);
            BAD("malformed enum value");
        }
        e->values = xreallocarray(e->values, (e->nvalues + 1), sizeof(*e->values));
        e->values[e->nvalues++] = ev;
    }
    return 0;
fail:
    xfree(name);
    return -1;
}

static int read_field(pbfield *fd, int proto3, const uint8_t *p, size_t n, char *err, size_t errlen)
{
    pbwire r = {p, p + n}, o;
    pbwire_field f, g;
    int k, label = 1, packed = -1, p3opt = 0;

    memset(fd, 0, sizeof(*fd));
    fd->oneof = -1;
    fd->msg = -1;
    fd->enm = -1;
    while ((k = pbwire_next(&r, &f)) > 0) {
        if (f.num == 1 && f.wt == 2) {
            xfree(fd->name);
            fd->name = wstr(&f);
        } else if (f.num == 3 && f.wt == 0)
            fd->number = (uint32_t)f.v;
        else if (f.num == 4 && f.wt == 0)
            label = (int)f.v;
        else if (f.num == 5 && f.wt == 0)
            fd->type = (int)f.v;
        else if (f.num == 6 && f.wt == 2) {
            xfree(fd->type_name);
            fd->type_name = wstr(&f);
        } else if (f.num == 8 && f.wt == 2) {
            o = (pbwire){f.p, f.p + f.n};
            while (pbwire_next(&o, &g) > 0)
                if (g.num == 2 && g.wt == 0)
                    packed = g.v != 0;
        } else if (f.num == 9 && f.wt == 0)
            fd->oneof = (int)f.v;
        else if (f.num == 17 && f.wt == 0)
            p3opt = f.v != 0;
    }
    if (k < 0 || fd->name == NULL || fd->number == 0 || fd->type < PB_DOUBLE ||
        fd->type > PB_SINT64)
        BAD("malformed field");
    if (fd->type == PB_GROUP)
        BAD("groups are not supported");
    if ((fd->type == PB_MESSAGE || fd->type == PB_ENUM) && fd->type_name == NULL)
        BAD("field without its type name");
    fd->repeated = label == 3;
    if (fd->repeated && fd->type != PB_STRING && fd->type != PB_BYTES && fd->type != PB_MESSAGE)
        fd->packed = packed >= 0 ? packed : proto3;
    fd->presence = !fd->repeated && (!proto3 || p3opt || fd->oneof >= 0 || fd->type == PB_MESSAGE);
    return 0;
fail:
    return -1;
}

static int read_msg(pbschema *s, const char *scope, int proto3, int depth, const uint8_t *p,
                    size_t n, char *err, size_t errlen)
{
    pbwire r = {p, p + n}, o;
    pbwire_field f, g;
    int k;
    char *name = NULL, *full = NULL;
    size_t mi;

    if (depth > PBSCHEMA_MAX_NEST)
        BAD("messages nested too deep");
    while ((k = pbwire_next(&r, &f)) > 0)
        if (f.num == 1 && f.wt == 2) {
            xfree(name);
            name = wstr(&f);
        }
    if (k < 0 || name == NULL)
        BAD("malformed message");
    full = join(scope, name);
    s->msgs = xreallocarray(s->msgs, (s->nmsgs + 1), sizeof(*s->msgs));
    mi = s->nmsgs++;
    memset(&s->msgs[mi], 0, sizeof(s->msgs[mi]));
    s->msgs[mi].name = full;
    s->msgs[mi].proto3 = proto3;
    r = (pbwire){p, p + n};
    while (pbwire_next(&r, &f) > 0) {
        if (f.wt != 2)
            continue;
        if (f.num == 2) {
            pbmsg *m = &s->msgs[mi];
            m->fields = xreallocarray(m->fields, (m->nfields + 1), sizeof(*m->fields));
            if (read_field(&m->fields[m->nfields], proto3, f.p, f.n, err, errlen) != 0) {
                xfree(m->fields[m->nfields].name);
                xfree(m->fields[m->nfields].type_name);
                goto fail;
            }
            m->nfields++;
        } else if (f.num == 3) {
            /* s->msgs may move: index, never keep a pointer across this */
            if (read_msg(s, full, proto3, depth + 1, f.p, f.n, err, errlen) != 0)
                goto fail;
        } else if (f.num == 4) {
            if (read_enum(s, full, f.p, f.n, err, errlen) != 0)
                goto fail;
        } else if (f.num == 7) {
            o = (pbwire){f.p, f.p + f.n};
            while (pbwire_next(&o, &g) > 0)
                if (g.num == 7 && g.wt == 0)
                    s->msgs[mi].map_entry = g.v != 0;
        }
    }
    xfree(name);
    return 0;
fail:
    xfree(name);
    return -1;
}

static int read_service(pbschema *s, const char *scope, const uint8_t *p, size_t n, char *err,
                        size_t errlen)
{
    pbwire r = {p, p + n}, v;
    pbwire_field f, g;
    int k;
    char *name = NULL, *svc = NULL;

    while ((k = pbwire_next(&r, &f)) > 0)
        if (f.num == 1 && f.wt == 2) {
            xfree(name);
            name = wstr(&f);
        }
    if (k < 0 || name == NULL)
        BAD("malformed service");
    svc = join(scope, name);
    r = (pbwire){p, p + n};
    while (pbwire_next(&r, &f) > 0) {
        if (f.num != 2 || f.wt != 2)
            continue;
        pbmethod m;
        memset(&m, 0, sizeof(m));
        char *mname = NULL;
        v = (pbwire){f.p, f.p + f.n};
        while ((k = pbwire_next(&v, &g)) > 0) {
            if (g.wt == 2 && g.num >= 1 && g.num <= 3) {
                char **dst = g.num == 1 ? &mname : g.num == 2 ? &m.in_name : &m.out_name;
                xfree(*dst);
                *dst = wstr(&g);
            } else if (g.num == 5 && g.wt == 0)
                m.client_streaming = g.v != 0;
            else if (g.num == 6 && g.wt == 0)
                m.server_streaming = g.v != 0;
        }
        if (k < 0 || mname == NULL || m.in_name == NULL || m.out_name == NULL) {
            xfree(mname);
            xfree(m.in_name);
            xfree(m.out_name);
            BAD("malformed method");
        }
        size_t a = strlen(svc), b = strlen(mname);
        m.path = xmalloc(a + b + 2);
        memcpy(m.path, svc, a);
        m.path[a] = '/';
        memcpy(m.path + a + 1, mname, b + 1);
        xfree(mname);
        m.in = m.out = -1;
        s->methods = xreallocarray(s->methods, (s->nmethods + 1), sizeof(*s->methods));
        s->methods[s->nmethods++] = m;
    }
    xfree(name);
    xfree(svc);
    return 0;
fail:
    xfree(name);
    xfree(svc);
    return -1;
}

static int read_file(pbschema *s, const uint8_t *p, size_t n, char *err, size_t errlen)
{
    pbwire r = {p, p + n};
    pbwire_field f;
    int k, proto3 = 0;
    char *pkg = xstrdup("");

    while ((k = pbwire_next(&r, &f)) > 0) {
        if (f.num == 2 && f.wt == 2) {
            xfree(pkg);
            pkg = wstr(&f);
        } else if (f.num == 12 && f.wt == 2)
            proto3 = f.n == 6 && memcmp(f.p, "proto3", 6) == 0;
    }
    if (k < 0)
        BAD("malformed file");
    r = (pbwire){p, p + n};
    while (pbwire_next(&r, &f) > 0) {
        if (f.wt != 2)
            continue;
        if (f.num == 4 && read_msg(s, pkg, proto3, 0, f.p, f.n, err, errlen) != 0)
            goto fail;
        if (f.num == 5 && read_enum(s, pkg, f.p, f.n, err, errlen) != 0)
            goto fail;
        if (f.num == 6 && read_service(s, pkg, f.p, f.n, err, errlen) != 0)
            goto fail;
    }
    xfree(pkg);
    return 0;
fail:
    xfree(pkg);
    return -1;
}

static const char *undot(const char *name)
{
    return name[0] == '.' ? name + 1 : name;
}

int pbschema_msg(const pbschema *s, const char *name)
{
    name = undot(name);
    for (size_t i = 0; i < s->nmsgs; i++)
        if (strcmp(s->msgs[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int find_enum(const pbschema *s, const char *name)
{
    name = undot(name);
    for (size_t i = 0; i < s->nenums; i++)
        if (strcmp(s->enums[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Every type name resolved to its index. A linear search per field: this
 * runs once per worker, over schemas of tens of messages. */
static int resolve(pbschema *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->nmsgs; i++) {
        pbmsg *m = &s->msgs[i];
        for (size_t j = 0; j < m->nfields; j++) {
            pbfield *f = &m->fields[j];
            if (f->type == PB_MESSAGE && f->msg < 0)
                f->msg = pbschema_msg(s, f->type_name);
            if (f->type == PB_ENUM && f->enm < 0)
                f->enm = find_enum(s, f->type_name);
            if ((f->type == PB_MESSAGE && f->msg < 0) || (f->type == PB_ENUM && f->enm < 0)) {
                err_set(err, errlen, "descriptor set: type %s of %s.%s is not in the set",
                        f->type_name, m->name, f->name);
                return -1;
            }
            if (f->type == PB_ENUM && s->enums[f->enm].nvalues == 0) {
                err_set(err, errlen, "descriptor set: enum %s has no value", f->type_name);
                return -1;
            }
        }
    }
    for (size_t i = 0; i < s->nmethods; i++) {
        pbmethod *m = &s->methods[i];
        m->in = pbschema_msg(s, m->in_name);
        m->out = pbschema_msg(s, m->out_name);
        if (m->in < 0 || m->out < 0) {
            err_set(err, errlen, "descriptor set: a type of %s is not in the set", m->path);
            return -1;
        }
    }
    return 0;
}

pbschema *pbschema_new(void)
{
    return xcalloc(1, sizeof(pbschema));
}

int pbschema_add(pbschema *s, const uint8_t *set, size_t len, char *err, size_t errlen)
{
    pbwire r = {set, set + len};
    pbwire_field f;
    int k;

    while ((k = pbwire_next(&r, &f)) > 0)
        if (f.num == 1 && f.wt == 2 && read_file(s, f.p, f.n, err, errlen) != 0)
            return -1;
    if (k < 0) {
        err_set(err, errlen, "descriptor set: malformed (not a FileDescriptorSet)");
        return -1;
    }
    return resolve(s, err, errlen);
}

const pbmethod *pbschema_method(const pbschema *s, const char *path)
{
    if (path[0] == '/')
        path++;
    for (size_t i = 0; i < s->nmethods; i++)
        if (strcmp(s->methods[i].path, path) == 0)
            return &s->methods[i];
    return NULL;
}

const pbfield *pbschema_field(const pbmsg *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->nfields; i++)
        if (strlen(m->fields[i].name) == len && memcmp(m->fields[i].name, name, len) == 0)
            return &m->fields[i];
    return NULL;
}

const pbfield *pbschema_field_num(const pbmsg *m, uint32_t number)
{
    for (size_t i = 0; i < m->nfields; i++)
        if (m->fields[i].number == number)
            return &m->fields[i];
    return NULL;
}

void pbschema_free(pbschema *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->nmsgs; i++) {
        for (size_t j = 0; j < s->msgs[i].nfields; j++) {
            xfree(s->msgs[i].fields[j].name);
            xfree(s->msgs[i].fields[j].type_name);
        }
        xfree(s->msgs[i].fields);
        xfree(s->msgs[i].name);
    }
    for (size_t i = 0; i < s->nenums; i++) {
        for (size_t j = 0; j < s->enums[i].nvalues; j++)
            xfree(s->enums[i].values[j].name);
        xfree(s->enums[i].values);
        xfree(s->enums[i].name);
    }
    for (size_t i = 0; i < s->nmethods; i++) {
        xfree(s->methods[i].path);
        xfree(s->methods[i].in_name);
        xfree(s->methods[i].out_name);
    }
    xfree(s->msgs);
    xfree(s->enums);
    xfree(s->methods);
    xfree(s);
}
