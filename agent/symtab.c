/* symtab — a profiled process's addresses named and its stacks unwound; see symtab.h. */
#include "agent/symtab.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"

/* An address in no module reads the mappings again, at most this often. */
#define REREAD_US 1000000

typedef struct sname {
    uint64_t ip; /* plus one: 0 is an empty slot */
    char *name;  /* owned */
    size_t len;
} sname;

/* What the unwinder's callbacks read: the sample being unwound. */
typedef struct unw {
    pid_t tid;
    const uint64_t *regs; /* borrowed */
    const uint8_t *stack; /* borrowed */
    size_t stack_len;
    uint64_t *ips; /* borrowed: the caller's */
    size_t n, max;
    int given; /* next_thread handed the thread out */
} unw;

struct symtab {
    Dwfl *dwfl; /* owned */
    pid_t pid;
    int attached; /* the unwinder's state is on dwfl */
    int64_t read_us;
    sname *cache; /* owned: SYMTAB_CACHE slots */
    size_t ncache;
    unw cur;
    char buf[SYMTAB_NAME_MAX + 1];
};

static char *debuginfo_path = NULL;
static const Dwfl_Callbacks proc_cb = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

static pid_t unw_next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
    symtab *s = arg;

    (void)dwfl;
    if (s->cur.given)
        return 0;
    s->cur.given = 1;
    *thread_arg = s;
    return s->cur.tid;
}

static bool unw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
    symtab *s = arg;

    (void)dwfl;
    if (tid != s->cur.tid)
        return false;
    *thread_arg = s;
    return true;
}

static bool unw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    symtab *s = arg;
    uint64_t sp = s->cur.regs[7];

    (void)dwfl;
    if (addr < sp || addr - sp + 8 > s->cur.stack_len)
        return false;
    memcpy(result, s->cur.stack + (addr - sp), 8);
    return true;
}

static bool unw_set_regs(Dwfl_Thread *thread, void *arg)
{
    symtab *s = arg;
    const uint64_t *r = s->cur.regs; /* AX BX CX DX SI DI BP SP IP R8..R15 */
    Dwarf_Word d[16] = {r[0], r[3],  r[2],  r[1],  r[4],  r[5],  r[6],  r[7],
                        r[9], r[10], r[11], r[12], r[13], r[14], r[15], r[16]};

    if (!dwfl_thread_state_registers(thread, 0, 16, d))
        return false;
    dwfl_thread_state_register_pc(thread, r[8]);
    return true;
}

static const Dwfl_Thread_Callbacks unw_cb = {
    .next_thread = unw_next_thread,
    .get_thread = unw_get_thread,
    .memory_read = unw_memory_read,
    .set_initial_registers = unw_set_regs,
};

static int report(symtab *s)
{
    dwfl_report_begin(s->dwfl);
    int rc = dwfl_linux_proc_report(s->dwfl, s->pid);
    dwfl_report_end(s->dwfl, NULL, NULL);
    s->read_us = clock_mono_us();
    return rc;
}

symtab *symtab_new(pid_t pid)
{
    symtab *s = xcalloc(1, sizeof(*s));

    s->pid = pid;
    s->dwfl = dwfl_begin(&proc_cb);
    if (s->dwfl == NULL || report(s) != 0) {
        symtab_free(s);
        return NULL;
    }
    s->cache = xcalloc(SYMTAB_CACHE, sizeof(*s->cache));
    return s;
}

/* The name of a module, its file's last part, for an address in no symbol. */
static const char *module_base(Dwfl_Module *m)
{
    const char *name = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (name == NULL)
        return "?";
    const char *slash = strrchr(name, '/');
    return slash != NULL ? slash + 1 : name;
}

static size_t lookup(symtab *s, uint64_t addr)
{
    Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
    int n;

    if (m == NULL && clock_mono_us() - s->read_us > REREAD_US) {
        report(s); /* a library loaded since */
        m = dwfl_addrmodule(s->dwfl, addr);
    }
    if (m == NULL) {
        n = snprintf(s->buf, sizeof(s->buf), "[unknown]");
    } else {
        GElf_Off off;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL);
        if (name != NULL && strncmp(name, "__GI_", 5) == 0 && name[5] != '\0')
            name += 5; /* glibc's internal alias of an exported name */
        if (name != NULL && *name != '\0')
            n = snprintf(s->buf, sizeof(s->buf), "%.*s", (int)strcspn(name, "@"), name);
        else
            n = snprintf(s->buf, sizeof(s->buf), "[%s]", module_base(m));
    }
    size_t len = n < 0 ? 0 : (size_t)n >= sizeof(s->buf) ? sizeof(s->buf) - 1 : (size_t)n;
    for (size_t i = 0; i < len; i++)
        if (s->buf[i] == ';' || s->buf[i] == '\n' || s->buf[i] == '\r')
            s->buf[i] = ':'; /* ';' separates folded frames */
    s->buf[len] = '\0';
    return len;
}

const char *symtab_name(symtab *s, uint64_t ip, int is_return, size_t *len)
{
    uint64_t addr = is_return && ip > 0 ? ip - 1 : ip;
    size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 48) & (SYMTAB_CACHE - 1);

    for (size_t probe = 0; probe < 8; probe++) {
        sname *e = &s->cache[(i + probe) & (SYMTAB_CACHE - 1)];
        if (e->ip == addr + 1) {
            *len = e->len;
            return e->name;
        }
        if (e->ip == 0) {
            e->len = lookup(s, addr);
            e->name = xstrndup(s->buf, e->len);
            e->ip = addr + 1;
            *len = e->len;
            return e->name;
        }
    }
    *len = lookup(s, addr); /* its neighbourhood is full: not cached */
    return s->buf;
}

static int unw_frame(Dwfl_Frame *f, void *arg)
{
    symtab *s = arg;
    Dwarf_Addr pc;
    bool activation;

    if (!dwfl_frame_pc(f, &pc, &activation) || s->cur.n >= s->cur.max)
        return DWARF_CB_ABORT;
    s->cur.ips[s->cur.n++] = pc;
    return DWARF_CB_OK;
}

size_t symtab_unwind(symtab *s, pid_t tid, const uint64_t *regs, const uint8_t *stack,
                     size_t stack_len, uint64_t *ips, size_t max)
{
    if (!s->attached) {
        if (!dwfl_attach_state(s->dwfl, NULL, s->pid, &unw_cb, s))
            return 0;
        s->attached = 1;
    }
    s->cur.tid = tid;
    s->cur.regs = regs;
    s->cur.stack = stack;
    s->cur.stack_len = stack_len;
    s->cur.ips = ips;
    s->cur.n = 0;
    s->cur.max = max;
    s->cur.given = 0;
    dwfl_getthread_frames(s->dwfl, tid, unw_frame, s);
    return s->cur.n;
}

void symtab_free(symtab *s)
{
    if (s == NULL)
        return;
    if (s->dwfl != NULL)
        dwfl_end(s->dwfl);
    if (s->cache != NULL)
        for (size_t i = 0; i < SYMTAB_CACHE; i++)
            xfree(s->cache[i].name);
    xfree(s->cache);
    xfree(s);
}
