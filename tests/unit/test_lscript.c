/* Unit tests for worker/lscript: the Lua state a worker (and the console's
 * check of a script, and its setup) makes, against the editor annotations of
 * share/annotations/.
 *
 * The state is made as engine_new makes it, from a script that declares a
 * scenario, a step and a feeder; then every module of package.preload, every
 * metatable quern files by name ("quern.X") with its methods, and a step, a
 * scenario and a VU table as scripts see them are walked and compared with
 * the names the annotation files declare. A function quern registers and no
 * file annotates, or one annotated and not registered, fails the test with
 * its name and what to write where.
 *
 * The parser reads what the files are written with, one declaration a line:
 *   ---@class NAME             a class (a module's table, or a metatable's __name)
 *   ---@field NAME[?] TYPE     a field of the class above ("?": may be nil)
 *   local VAR = {}             right after the class block: VAR is that class here
 *   function VAR.f(...) end    a function of VAR's class (also VAR:f)
 * Fields of userdata (r.status, step.id) are computed in C and cannot be
 * listed: an annotated field of a step is checked to be there, not the
 * other way round; plain tables built per call (gRPC replies, events) are
 * not walked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <dirent.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "worker/engine/engine.h"
#include "worker/engine/engine_int.h"
#include "worker/engine/vu.h"
#include "worker/lua/lmods.h"

/* The annotations, from the top of the tree (tests/run.sh runs there). */
#define ANNOT_DIR "share/annotations"
#define NAME_MAX_LEN 64
#define MAX_CLASSES 128
#define MAX_MEMBERS 1024
#define MAX_BINDINGS 32
#define REPORT_MAX 16384

enum member_kind {
    MEMBER_FIELD, /* ---@field */
    MEMBER_FUNC,  /* function VAR.f / VAR:f */
};

typedef struct member {
    char cls[NAME_MAX_LEN];
    char name[NAME_MAX_LEN];
    enum member_kind kind;
    int optional;   /* ---@field name? */
    int fun_type;   /* ---@field name fun(...) */
    char where[96]; /* file:line */
} member;

typedef struct klass {
    char name[NAME_MAX_LEN];
    char file[64]; /* the first file that binds it to a variable, else declares it */
    char var[NAME_MAX_LEN];
    int checked; /* a module or a metatable of that name was walked */
} klass;

typedef struct annot {
    klass classes[MAX_CLASSES];
    size_t nclasses;
    member members[MAX_MEMBERS];
    size_t nmembers;
    char report[REPORT_MAX]; /* one problem a paragraph */
    size_t rlen;
    int problems;
} annot;

static annot A;

static void report(annot *a, const char *fmt, ...)
{
    va_list ap;

    if (a->rlen + 1 < sizeof(a->report)) {
        va_start(ap, fmt);
        int n = vsnprintf(a->report + a->rlen, sizeof(a->report) - a->rlen, fmt, ap);
        va_end(ap);
        if (n > 0)
            a->rlen += (size_t)n < sizeof(a->report) - a->rlen ? (size_t)n
                                                               : sizeof(a->report) - a->rlen - 1;
    }
    a->problems++;
}

static klass *class_find(annot *a, const char *name)
{
    for (size_t i = 0; i < a->nclasses; i++)
        if (strcmp(a->classes[i].name, name) == 0)
            return &a->classes[i];
    return NULL;
}

static klass *class_add(annot *a, const char *name, const char *file)
{
    klass *k = class_find(a, name);

    if (k != NULL)
        return k;
    assert_true(a->nclasses < MAX_CLASSES);
    k = &a->classes[a->nclasses++];
    memset(k, 0, sizeof(*k));
    snprintf(k->name, sizeof(k->name), "%s", name);
    snprintf(k->file, sizeof(k->file), "%s", file);
    return k;
}

static member *member_find(annot *a, const char *cls, const char *name)
{
    for (size_t i = 0; i < a->nmembers; i++)
        if (strcmp(a->members[i].cls, cls) == 0 && strcmp(a->members[i].name, name) == 0)
            return &a->members[i];
    return NULL;
}

static void member_add(annot *a, const char *cls, const char *name, enum member_kind kind,
                       int optional, int fun_type, const char *file, int line)
{
    member *m;

    if (member_find(a, cls, name) != NULL)
        return; /* a class may be spread over files, a name said twice */
    assert_true(a->nmembers < MAX_MEMBERS);
    m = &a->members[a->nmembers++];
    snprintf(m->cls, sizeof(m->cls), "%s", cls);
    snprintf(m->name, sizeof(m->name), "%s", name);
    m->kind = kind;
    m->optional = optional;
    m->fun_type = fun_type;
    snprintf(m->where, sizeof(m->where), "%s:%d", file, line);
}

/* Copies the name at p (letters, digits, '_', '.') into out; returns its end. */
static const char *name_at(const char *p, char *out, size_t outlen)
{
    size_t n = 0;

    while (*p == ' ')
        p++;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
           *p == '_' || *p == '.') {
        if (n + 1 < outlen)
            out[n++] = *p;
        p++;
    }
    out[n] = '\0';
    return p;
}

static void parse_file(annot *a, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024], cur[NAME_MAX_LEN] = "";
    char vars[MAX_BINDINGS][NAME_MAX_LEN], classes[MAX_BINDINGS][NAME_MAX_LEN];
    size_t nvars = 0;
    int lineno = 0, in_class = 0;

    assert_non_null(f);
    while (fgets(line, sizeof(line), f) != NULL) {
        char name[NAME_MAX_LEN], var[NAME_MAX_LEN];
        const char *p = line;

        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        while (*p == ' ')
            p++;
        if (strncmp(p, "---@class ", 10) == 0) {
            name_at(p + 10, cur, sizeof(cur));
            class_add(a, cur, path);
            in_class = 1;
        } else if (strncmp(p, "---@field ", 10) == 0 && in_class) {
            p = name_at(p + 10, name, sizeof(name));
            int optional = *p == '?';
            p += optional;
            while (*p == ' ')
                p++;
            member_add(a, cur, name, MEMBER_FIELD, optional, strncmp(p, "fun(", 4) == 0, path,
                       lineno);
        } else if (strncmp(p, "--", 2) == 0) {
            continue; /* other annotations, comments */
        } else if (*p == '\0') {
            in_class = 0;
        } else if (in_class) {
            /* local VAR = {} (or VAR = {}): VAR is the class, in this file */
            if (strncmp(p, "local ", 6) == 0)
                p += 6;
            p = name_at(p, var, sizeof(var));
            if (strncmp(p, " = {}", 5) == 0 && var[0] != '\0' && nvars < MAX_BINDINGS) {
                klass *k = class_find(a, cur);
                snprintf(vars[nvars], sizeof(vars[nvars]), "%s", var);
                snprintf(classes[nvars], sizeof(classes[nvars]), "%s", cur);
                nvars++;
                if (k->var[0] == '\0') {
                    snprintf(k->var, sizeof(k->var), "%s", var);
                    snprintf(k->file, sizeof(k->file), "%s", path);
                }
            }
            in_class = 0;
        } else if (strncmp(p, "function ", 9) == 0) {
            /* function VAR.f( or VAR:f( */
            char full[2 * NAME_MAX_LEN];
            const char *fn, *end = name_at(p + 9, full, sizeof(full));
            char *dot;
            size_t i;
            int colon = *end == ':';

            if (colon) {
                name_at(end + 1, name, sizeof(name));
                fn = name;
            } else {
                dot = strrchr(full, '.');
                if (dot == NULL) {
                    report(a,
                           "%s:%d: function %s: not a function of a class (write VAR.%s, "
                           "VAR bound by `local VAR = {}` after a ---@class)\n\n",
                           path, lineno, full, full);
                    continue;
                }
                *dot = '\0';
                fn = dot + 1;
            }
            for (i = 0; i < nvars && strcmp(vars[i], full) != 0; i++)
                ;
            if (i == nvars) {
                report(a,
                       "%s:%d: function %s%s%s: %s is no class of this file (bind it with "
                       "`local %s = {}` right after its ---@class block, no blank line "
                       "between)\n\n",
                       path, lineno, full, colon ? ":" : ".", fn, full, full);
                continue;
            }
            member_add(a, classes[i], fn, MEMBER_FUNC, 0, 0, path, lineno);
        }
    }
    fclose(f);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every .lua of dir in name order, then those of its folders: a class's
 * file is the first that binds it (quern.Step: quern.lua). */
static void parse_dir(annot *a, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char *names[64];
    size_t n = 0;

    if (d == NULL)
        fail_msg("cannot read %s (run the test from the top of the tree)", dir);
    while ((de = readdir(d)) != NULL && n < 64)
        if (de->d_name[0] != '.')
            names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof(names[0]), cmp_str);
    for (int pass = 0; pass < 2; pass++) /* files, then folders */
        for (size_t i = 0; i < n; i++) {
            char path[256];
            size_t len = strlen(names[i]);
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
            if (pass == 0 && len > 4 && strcmp(names[i] + len - 4, ".lua") == 0)
                parse_file(a, path);
            else if (pass == 1 && strchr(names[i], '.') == NULL)
                parse_dir(a, path);
        }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

/* What to write for a missing function of class k, and where. */
static void report_missing_function(annot *a, const klass *k, const char *cls, const char *name,
                                    int method)
{
    if (k == NULL) {
        report(a,
               "%s%s%s is registered but not annotated, and no file declares ---@class %s: "
               "add a file share/annotations/quern/NAME.lua starting with `---@meta _`, then\n"
               "    ---@class %s\n    local X = {}\n"
               "and one `function X%s%s(...) end` per function, each after a description "
               "and its ---@param and ---@return lines (as in docs/scenarios.md)\n\n",
               cls, method ? ":" : ".", name, cls, cls, method ? ":" : ".", name);
        return;
    }
    report(a,
           "%s%s%s is registered but not annotated: add to %s (or the file of its feature, "
           "after a `---@class %s` and `local %s = {}` of its own), as docs/scenarios.md "
           "describes it:\n"
           "    ---What it does, in a line.\n    ---@param ARG TYPE\n    ---@return TYPE\n"
           "    function %s%s%s(ARG) end\n\n",
           cls, method ? ":" : ".", name, k->file, cls, k->var[0] ? k->var : "X", k->var,
           method ? ":" : ".", name);
}

/* A module's table at idx (class cls): each key annotated, each annotated
 * name there; tables of its own (quern.json) are modules in turn. */
static void check_module(annot *a, lua_State *L, int idx, const char *cls)
{
    klass *k = class_find(a, cls);

    idx = lua_absindex(L, idx);
    if (k != NULL)
        k->checked = 1;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            const char *name = lua_tostring(L, -2);
            int t = lua_type(L, -1);
            if (member_find(a, cls, name) == NULL) {
                if (t == LUA_TFUNCTION)
                    report_missing_function(a, k, cls, name, 0);
                else
                    report(a,
                           "%s.%s (a %s) is registered but not annotated: add under "
                           "`---@class %s` in %s:\n    ---@field %s TYPE what it is\n\n",
                           cls, name, lua_typename(L, t), cls, k ? k->file : ANNOT_DIR, name);
            }
            if (t == LUA_TTABLE && !lua_getmetatable(L, -1)) {
                char sub[NAME_MAX_LEN];
                snprintf(sub, sizeof(sub), "%s.%s", cls, name);
                check_module(a, L, -1, sub);
            } else if (t == LUA_TTABLE) {
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    for (size_t i = 0; i < a->nmembers; i++) {
        member *m = &a->members[i];
        if (strcmp(m->cls, cls) != 0)
            continue;
        if (lua_getfield(L, idx, m->name) == LUA_TNIL)
            report(a,
                   "%s.%s is annotated (%s) but the module has no such name: remove it, or "
                   "register it\n\n",
                   cls, m->name, m->where);
        lua_pop(L, 1);
    }
}

/* The methods table at idx of the metatable named cls: each annotated as a
 * function of cls, each function of cls there. */
static void check_methods(annot *a, lua_State *L, int idx, const char *cls)
{
    klass *k = class_find(a, cls);

    idx = lua_absindex(L, idx);
    if (k != NULL)
        k->checked = 1;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            const char *name = lua_tostring(L, -2);
            member *m = member_find(a, cls, name);
            if (m == NULL)
                report_missing_function(a, k, cls, name, 1);
            else if (m->kind != MEMBER_FUNC)
                report(a,
                       "%s:%s is a method but annotated as a field (%s): write it as "
                       "`function %s:%s(...) end` with its ---@param and ---@return lines\n\n",
                       cls, name, m->where, k->var[0] ? k->var : "X", name);
        }
        lua_pop(L, 1);
    }
    for (size_t i = 0; i < a->nmembers; i++) {
        member *m = &a->members[i];
        if (strcmp(m->cls, cls) != 0 || m->kind != MEMBER_FUNC)
            continue;
        if (lua_getfield(L, idx, m->name) == LUA_TNIL)
            report(a,
                   "%s:%s is annotated (%s) but %s's metatable has no such method: remove "
                   "it, or register it\n\n",
                   cls, m->name, m->where, cls);
        lua_pop(L, 1);
    }
}

/* Every metatable of the registry filed by name under "quern.", with a
 * methods table (its __index, or the upvalue of an __index closure). */
static void check_metatables(annot *a, lua_State *L)
{
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX) != 0) {
        const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (name != NULL && strncmp(name, "quern.", 6) == 0 && lua_istable(L, -1)) {
            int t = lua_getfield(L, -1, "__index");
            if (t == LUA_TTABLE)
                check_methods(a, L, -1, name);
            else if (t == LUA_TFUNCTION && lua_iscfunction(L, -1) &&
                     lua_getupvalue(L, -1, 1) != NULL) {
                if (lua_istable(L, -1))
                    check_methods(a, L, -1, name);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

/* An object scripts see, at idx, of class cls: each field cls annotates
 * without "?" is there; with raw (a plain table), each key is annotated. */
static void check_instance(annot *a, lua_State *L, int idx, const char *cls, int raw)
{
    const klass *k = class_find(a, cls);

    idx = lua_absindex(L, idx);
    if (k == NULL) {
        report(a, "no ---@class %s in %s\n\n", cls, ANNOT_DIR);
        return;
    }
    if (raw) {
        lua_pushnil(L);
        while (lua_next(L, idx) != 0) {
            if (lua_type(L, -2) == LUA_TSTRING && member_find(a, cls, lua_tostring(L, -2)) == NULL)
                report(a,
                       "%s.%s (a %s) is there but not annotated: add under `---@class %s` "
                       "in %s:\n    ---@field %s TYPE what it is\n\n",
                       cls, lua_tostring(L, -2), luaL_typename(L, -1), cls, k->file,
                       lua_tostring(L, -2));
            lua_pop(L, 1);
        }
    }
    for (size_t i = 0; i < a->nmembers; i++) {
        const member *m = &a->members[i];
        if (strcmp(m->cls, cls) != 0 || m->kind != MEMBER_FIELD || m->optional)
            continue;
        if (lua_getfield(L, idx, m->name) == LUA_TNIL)
            report(a,
                   "%s.%s is annotated (%s) but is nil: remove it, or mark it `%s?` if it "
                   "may be nil\n\n",
                   cls, m->name, m->where, m->name);
        lua_pop(L, 1);
    }
}

/* 1 when cls is a class of a module written in Lua (worker/lua/lmods.h),
 * "quern.redis.Client": its objects are plain tables with a metatable of
 * the module's own, which the registry does not file. */
static int lua_module_class(const char *cls)
{
    char mod[NAME_MAX_LEN];
    const char *dot = strrchr(cls, '.');
    size_t len;

    if (dot == NULL || (size_t)(dot - cls) >= sizeof(mod))
        return 0;
    memcpy(mod, cls, (size_t)(dot - cls));
    mod[dot - cls] = '\0';
    return lmods_source(mod, &len) != NULL;
}

/* Every class that declares functions stands for a module or a metatable. */
static void check_unmatched(annot *a)
{
    for (size_t i = 0; i < a->nclasses; i++) {
        const klass *k = &a->classes[i];
        if (k->checked || lua_module_class(k->name))
            continue;
        for (size_t j = 0; j < a->nmembers; j++)
            if (a->members[j].kind == MEMBER_FUNC && strcmp(a->members[j].cls, k->name) == 0) {
                report(a,
                       "%s declares functions (%s: %s) but quern registers no module nor "
                       "metatable of that name\n\n",
                       k->name, a->members[j].where, a->members[j].name);
                break;
            }
    }
}

/* The whole comparison, over the state of e. */
static void check_state(annot *a, engine *e)
{
    lua_State *L = e->L;
    int top = lua_gettop(L);

    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
        const char *mod = lua_tostring(L, -2);
        lua_getglobal(L, "require");
        lua_pushstring(L, mod);
        assert_int_equal(lua_pcall(L, 1, 1, 0), LUA_OK);
        assert_true(lua_istable(L, -1));
        if (class_find(a, mod) == NULL)
            report(a,
                   "module %s (require \"%s\") has no annotation: add a file "
                   "share/annotations/%s.lua (dots as folders) starting with `---@meta`, "
                   "with `---@class %s`, `local M = {}`, its functions and `return M`\n\n",
                   mod, mod, mod, mod);
        check_module(a, L, -1, mod);
        lua_pop(L, 2);
    }
    lua_settop(L, top);
    check_metatables(a, L);

    lua_getglobal(L, "step");
    check_instance(a, L, -1, "quern.Step", 0);
    lua_getglobal(L, "sc");
    check_instance(a, L, -1, "quern.Scenario", 1);
    assert_true(e->nvus >= 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, e->vus[0].tbl_ref);
    check_instance(a, L, -1, "quern.VU", 1);
    lua_settop(L, top);
    check_unmatched(a);
}

static char dir[64], script[96], csv[96];

/* An engine with one VU, over a script that declares what the walk needs:
 * a scenario (global sc), a step (global step) and a feeder (which makes
 * the feeders' metatable). A kind of object whose metatable is made at its
 * first use, as feeders' is, needs a line here that makes one. */
static engine *make_engine(void)
{
    engine_cfg cfg;
    engine *e;
    char err[ERR_MAX];
    FILE *f;

    snprintf(dir, sizeof(dir), "/tmp/quern-test-lscript.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(script, sizeof(script), "%s/api.lua", dir);
    snprintf(csv, sizeof(csv), "%s/users.csv", dir);
    f = fopen(csv, "w");
    assert_non_null(f);
    fputs("user\nalice\n", f);
    fclose(f);
    f = fopen(script, "w");
    assert_non_null(f);
    fputs("local quern = require \"quern\"\n"
          "feeder = quern.csv(\"users.csv\")\n"
          "sc = quern.scenario(\"API\", {})\n"
          "step = sc:step(1, \"One\")\n"
          "function sc.run(vu) end\n",
          f);
    fclose(f);
    memset(&cfg, 0, sizeof(cfg));
    cfg.script = script;
    cfg.vus_total = 1;
    cfg.vu_first = 1;
    cfg.vu_stride = 1;
    cfg.vu_count = 1;
    cfg.runs = 1;
    e = engine_new(&cfg, err, sizeof(err));
    if (e == NULL)
        fail_msg("engine_new: %s", err);
    return e;
}

static void drop_engine(engine *e)
{
    engine_free(e);
    unlink(script);
    unlink(csv);
    rmdir(dir);
}

static void load_annotations(annot *a)
{
    memset(a, 0, sizeof(*a));
    parse_dir(a, ANNOT_DIR);
    assert_non_null(class_find(a, "quern"));
}

/* What quern registers is what share/annotations/ declares. */
static void test_annotations_match(void **state)
{
    engine *e;

    load_annotations(&A);
    e = make_engine();
    check_state(&A, e);
    drop_engine(e);
    if (A.problems > 0) {
        /* print_message cuts long texts */
        printf("%d difference(s) between quern's Lua API and %s/ (docs/scenarios.md says "
               "what each name does):\n\n%s",
               A.problems, ANNOT_DIR, A.report);
        fflush(stdout);
        fail_msg("%d difference(s), above", A.problems);
    }
}

/* The check names what is missing and what is extra: a function taken out
 * of the annotations, one added that quern lacks, a module field taken out. */
static void test_differences_named(void **state)
{
    engine *e;
    member *m;

    load_annotations(&A);
    e = make_engine();
    m = member_find(&A, "quern.Response", "contains");
    assert_non_null(m);
    snprintf(m->name, sizeof(m->name), "contains_all"); /* contains is now missing */
    m = member_find(&A, "quern", "vus");
    assert_non_null(m);
    snprintf(m->name, sizeof(m->name), "vus_total");
    check_state(&A, e);
    drop_engine(e);
    assert_int_equal(A.problems, 4);
    assert_non_null(strstr(A.report, "quern.Response:contains is registered but not annotated: "
                                     "add to share/annotations/quern/http.lua"));
    assert_non_null(strstr(A.report, "function Response:contains(ARG) end"));
    assert_non_null(strstr(A.report, "quern.Response:contains_all is annotated "
                                     "(share/annotations/quern/http.lua:"));
    assert_non_null(strstr(A.report, "quern.vus (a number) is registered but not annotated"));
    assert_non_null(strstr(A.report, "quern.vus_total is annotated"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_annotations_match),
        cmocka_unit_test(test_differences_named),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
