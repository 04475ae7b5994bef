/* fuzz_util — what several fuzz targets share: a file holding the input.
 *
 * What it is for: the modules that read files (properties, CSV data, the
 * token file) take a path. A target writes its input into one memory file
 * (memfd) per process and passes "/proc/self/fd/N", so an execution costs no
 * disk. Header-only (static functions): each target is one program.
 *
 * Usage:
 *     const char *path = fuzz_file(data, size);   // NULL if it cannot be made
 *     props_load_file(p, path, err, sizeof(err));
 *
 * fuzz_check aborts with a message when an invariant of the module under
 * test does not hold: libFuzzer (and the corpus driver) report it as a
 * crash, with the input that caused it. */
#ifndef QUERN_FUZZ_UTIL_H
#define QUERN_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/** Aborts, naming the file, line and condition, when cond is false. */
#define fuzz_check(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/** Replaces the content of this process's memory file with size bytes of
 *  data and returns its path (a static buffer), or NULL if no memory file
 *  could be made (the input is then skipped). mode is the file's permission
 *  bits (0600 for a token file). */
static inline const char *fuzz_file_mode(const uint8_t *data, size_t size, unsigned mode)
{
    static int fd = -1;
    static char path[64];

    if (fd < 0) {
        fd = memfd_create("quern-fuzz", MFD_CLOEXEC);
        if (fd < 0)
            return NULL;
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (fchmod(fd, mode) != 0 || ftruncate(fd, 0) != 0)
        return NULL;
    for (size_t off = 0; off < size;) {
        ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);
        if (n <= 0)
            return NULL;
        off += (size_t)n;
    }
    return path;
}

/** fuzz_file_mode with mode 0644. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    return fuzz_file_mode(data, size, 0644);
}

/** A NUL-terminated copy of data (free it with free), for text parsers. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (s == NULL)
        abort();
    for (size_t i = 0; i < size; i++)
        s[i] = (char)data[i];
    s[size] = '\0';
    return s;
}

#endif
