/* symtab — a profiled process's addresses named, and its stacks unwound from
 * a copy, through elfutils' libdwfl.
 *
 * What it is for: the profiler (agent/profiler.h) names each frame of a
 * sample on the probe's side, so that only names travel to the console.
 * libdwfl reads the process's mappings (/proc/PID/maps), each module's
 * symbol table, its separate debug information where installed, and its
 * call frame information (.eh_frame), with which symtab_unwind walks a stack
 * copied at the sample (agent/perfev.h's dwarf records): the frames that
 * code without frame pointers (glibc, most of a distribution) hides from
 * the kernel's walk. An address in no symbol is named after its module,
 * "[libz.so.1]"; in no module, "[unknown]". Names are cached by address,
 * at most SYMTAB_CACHE of them.
 *
 * Usage:
 *     symtab *s = symtab_new(pid);          // NULL: the process is gone
 *     size_t len; const char *name = symtab_name(s, ip, is_return, &len);
 *     size_t n = symtab_unwind(s, tid, regs, stack, stack_len, ips, max);
 *     symtab_free(s);
 * Internal to agent/. */
#ifndef QUERN_SYMTAB_H
#define QUERN_SYMTAB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/** Addresses whose names are kept. */
#define SYMTAB_CACHE 65536
/** Longest name kept, bytes (a longer C++ name is cut). */
#define SYMTAB_NAME_MAX 256

typedef struct symtab symtab;

/** The modules of process pid, read now: NULL when it is gone or cannot be
 *  read. */
symtab *symtab_new(pid_t pid);
/** The name of the function at ip, valid until the next call (at most
 *  SYMTAB_NAME_MAX bytes, no ';'), its length in *len. is_return: ip is a
 *  return address, so the call is the byte before it. */
const char *symtab_name(symtab *s, uint64_t ip, int is_return, size_t *len);
/** The frames of thread tid from its registers (agent/perfev.h's
 *  PERFEV_NREGS) and stack_len bytes of its stack from SP: at most max
 *  addresses into ips, leaf first; 0 when not even the first could be read.
 *  The first is the instruction pointer, the others return addresses. */
size_t symtab_unwind(symtab *s, pid_t tid, const uint64_t *regs, const uint8_t *stack,
                     size_t stack_len, uint64_t *ips, size_t max);
/** Frees s; s may be NULL. */
void symtab_free(symtab *s);

#endif
