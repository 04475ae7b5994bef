/* driver — runs a fuzz target over files, without libFuzzer.
 *
 * What it is for: `make test` builds each tests/fuzz/fuzz_<target>.c with
 * the project's compiler and ASan/UBSan against this main(), and runs it
 * once over the target's checked-in corpus (tests/fuzz/corpus/<target>/):
 * every seed and every input that once crashed must now pass. It also
 * replays one input found by `make fuzz`:
 *
 *     build/asan/fuzz/fuzz_lcsv tests/fuzz/corpus/lcsv/     every file of a folder
 *     build/asan/fuzz/fuzz_lcsv build/fuzz/crashes/lcsv-crash-...
 *
 * Each file is one call of LLVMFuzzerTestOneInput, as libFuzzer makes it.
 * A crash or a sanitizer report ends the process (non-zero exit) after
 * "running FILE" names the input. Exit 0 when every input passed, 2 on a
 * usage or read error. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#define DRIVER_INPUT_MAX (16u << 20)

/* Runs the target on one file. 0, or -1 if it cannot be read. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = -1;
    long size;

    if (f == NULL)
        goto out;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || size > (long)DRIVER_INPUT_MAX ||
        fseek(f, 0, SEEK_SET) != 0)
        goto out;
    /* exactly size bytes, so that a read past the input is an overflow */
    buf = malloc(size > 0 ? (size_t)size : 1);
    if (buf == NULL)
        goto out;
    len = fread(buf, 1, (size_t)size, f);
    if (len != (size_t)size)
        goto out;
    fprintf(stderr, "running %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(buf, len);
    rc = 0;
out:
    if (rc != 0)
        fprintf(stderr, "cannot read %s: %s\n", path, errno ? strerror(errno) : "too large");
    free(buf);
    if (f != NULL)
        fclose(f);
    return rc;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Runs the target on every regular file of dir, in name order; counts them
 * into *n. 0, or -1 on a read error. */
static int run_dir(const char *dir, unsigned *n)
{
    struct dirent **ents;
    int m = scandir(dir, &ents, NULL, by_name), rc = 0;

    if (m < 0) {
        fprintf(stderr, "cannot read %s: %s\n", dir, strerror(errno));
        return -1;
    }
    for (int i = 0; i < m; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
        if (ents[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(path) != 0)
                rc = -1;
            (*n)++;
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned n = 0;
    int rc = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], &n) != 0)
                rc = 2;
        } else {
            if (run_file(argv[i]) != 0)
                rc = 2;
            n++;
        }
    }
    printf("%s: %u input(s) %s\n", argv[0], n, rc == 0 ? "passed" : "not all read");
    return rc;
}
