/* scriptfile — a Lua script the unit tests load from a file: the text
 * written to a new file /tmp/quern-test-NAME.XXXXXX.lua, unique to the call;
 * the test unlinks it. A file that cannot be made fails the calling test.
 * Link tests/unit/scriptfile.c. */
#ifndef QUERN_TESTS_SCRIPTFILE_H
#define QUERN_TESTS_SCRIPTFILE_H

#include <stddef.h>

/* Writes text to a new file named after name, its path into path (len
 * bytes); returns the file's base name, in path. */
const char *scriptfile_write(char *path, size_t len, const char *name, const char *text);

#endif
