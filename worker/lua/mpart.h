/* mpart — multipart/form-data bodies (a request's `multipart` option).
 *
 * What it is for: an upload is a table of fields, each a string (a text
 * field) or a file `{ path =, type =, name = }`. The files are read once per
 * worker, the first time a request names them, and kept as Lua strings in a
 * registry table for the worker's life: every later upload of the same file
 * hands libcurl the kept bytes through a read callback, without copying or
 * reading them again.
 *
 * Use (in a request, on the VU's coroutine):
 *     curl_mime *m = mpart_push(L, opts_idx_of_multipart, easy, dir);
 *     curl_easy_setopt(easy, CURLOPT_MIMEPOST, m);
 * The mime handle is owned by the userdata mpart_push leaves on the stack
 * (freed by the GC): keep it there for the transfer's life, and detach it
 * (CURLOPT_MIMEPOST NULL) once the transfer is over. Internal to worker/. */
#ifndef QUERN_MPART_H
#define QUERN_MPART_H

#include <curl/curl.h>
#include <lua.h>
#include <stddef.h>

/** Largest file a multipart field may send. */
#define MPART_FILE_MAX (64u << 20)
/** Most fields in one multipart body. */
#define MPART_FIELDS_MAX 256

/** Builds the multipart body of the table at idx for easy: text fields as
 *  their value, file fields from the worker's copy of the file (read now if
 *  it is the first time; a relative path is joined to dir). Pushes the
 *  userdata that owns the result and returns the mime handle. Raises a Lua
 *  error naming the field when a value is not a string, number or file
 *  table, or a file cannot be read. */
curl_mime *mpart_push(lua_State *L, int idx, CURL *easy, const char *dir);

/** How many distinct files the worker of L has read so far (tests). */
size_t mpart_files_read(lua_State *L);

#endif
