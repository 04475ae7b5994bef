/* pbschema — the messages, enums and gRPC methods of a protobuf descriptor
 * set, indexed for the dynamic codec (worker/pbcodec).
 *
 * What it is for: a script's grpc.load() names .proto files; the console
 * compiles them with protoc into a FileDescriptorSet (--include_imports)
 * that travels in the bundle. Each worker reads that set once into a
 * pbschema: every message with its fields, every enum with its values,
 * every method as "pkg.Service/Method" with its input and output types.
 * The set is read with a small wire reader of the few descriptor.proto
 * fields the codec needs (no generated code); a malformed set is refused
 * with a message, never trusted.
 *
 * Usage:
 *     pbschema *s = pbschema_new();
 *     if (pbschema_add(s, set, setlen, err, sizeof(err)) != 0) ...   // once per set
 *     const pbmethod *m = pbschema_method(s, "pkg.Svc/Get");
 *     pbcodec_encode(..., s, m->in, ...);
 *     pbschema_free(s); */
#ifndef QUERN_PBSCHEMA_H
#define QUERN_PBSCHEMA_H

#include <stddef.h>
#include <stdint.h>

/** Field types, as FieldDescriptorProto.Type numbers them. */
enum {
    PB_DOUBLE = 1,
    PB_FLOAT = 2,
    PB_INT64 = 3,
    PB_UINT64 = 4,
    PB_INT32 = 5,
    PB_FIXED64 = 6,
    PB_FIXED32 = 7,
    PB_BOOL = 8,
    PB_STRING = 9,
    PB_GROUP = 10,
    PB_MESSAGE = 11,
    PB_BYTES = 12,
    PB_UINT32 = 13,
    PB_ENUM = 14,
    PB_SFIXED32 = 15,
    PB_SFIXED64 = 16,
    PB_SINT32 = 17,
    PB_SINT64 = 18,
};

/** One field of a message. */
typedef struct pbfield {
    char *name;      /**< owned */
    char *type_name; /**< owned: ".pkg.Msg" for a message or enum field, else NULL */
    uint32_t number; /**< field number */
    int type;        /**< PB_* */
    int repeated;    /**< 1 if label is LABEL_REPEATED */
    int packed;      /**< 1 if a repeated scalar is written packed */
    int oneof;       /**< index of its oneof (real or proto3 optional), -1 if none */
    int presence;    /**< 1 if absence is distinct from the default (proto2, optional, oneof) */
    int msg;         /**< index of its message type in pbschema.msgs, -1 if not one */
    int enm;         /**< index of its enum type in pbschema.enums, -1 if not one */
} pbfield;

/** A message type. */
typedef struct pbmsg {
    char *name;      /**< owned: full name without the leading dot, "pkg.Outer.Inner" */
    pbfield *fields; /**< owned: nfields of them */
    size_t nfields;  /**< number of fields */
    int map_entry;   /**< 1 if it is the entry of a map field (key 1, value 2) */
    int proto3;      /**< 1 if declared in a proto3 file */
} pbmsg;

/** A value of an enum. */
typedef struct pbenumval {
    char *name;     /**< owned */
    int32_t number; /**< its number */
} pbenumval;

/** An enum type. */
typedef struct pbenum {
    char *name;        /**< owned: full name without the leading dot */
    pbenumval *values; /**< owned: nvalues of them, as declared (the first is the default) */
    size_t nvalues;    /**< number of values */
} pbenum;

/** A method of a service. */
typedef struct pbmethod {
    char *path;           /**< owned: "pkg.Service/Method" */
    char *in_name;        /**< owned: input type's full name */
    char *out_name;       /**< owned: output type's full name */
    int in;               /**< index of its input message */
    int out;              /**< index of its output message */
    int client_streaming; /**< 1 if the client sends a stream */
    int server_streaming; /**< 1 if the server sends a stream */
} pbmethod;

/** The index of one or more descriptor sets. */
typedef struct pbschema {
    pbmsg *msgs;       /**< owned: nmsgs of them */
    size_t nmsgs;      /**< number of messages */
    pbenum *enums;     /**< owned: nenums of them */
    size_t nenums;     /**< number of enums */
    pbmethod *methods; /**< owned: nmethods of them */
    size_t nmethods;   /**< number of methods */
} pbschema;

/** Most nested declarations (messages within messages) a set may have. */
#define PBSCHEMA_MAX_NEST 32

/** An empty schema. */
pbschema *pbschema_new(void);
/** Frees s and all it owns; NULL is fine. */
void pbschema_free(pbschema *s);
/** Adds the files of the serialized FileDescriptorSet set (len bytes) and
 *  resolves every field type; returns 0, or -1 with the reason in err (s
 *  then holds what was read before and must still be freed). */
int pbschema_add(pbschema *s, const uint8_t *set, size_t len, char *err, size_t errlen);
/** The message called name (with or without the leading dot), -1 if none. */
int pbschema_msg(const pbschema *s, const char *name);
/** The method "pkg.Service/Method" (a leading '/' is allowed), NULL if none. */
const pbmethod *pbschema_method(const pbschema *s, const char *path);
/** The field of message m called name, NULL if none. */
const pbfield *pbschema_field(const pbmsg *m, const char *name, size_t len);
/** The field of message m numbered number, NULL if none. */
const pbfield *pbschema_field_num(const pbmsg *m, uint32_t number);

#endif
