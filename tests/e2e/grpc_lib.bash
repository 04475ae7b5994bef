# What the gRPC tests share (sourced, not run): lib.bash, Debian's python3
# as $PY, protoc checked, and tests/tools/grpc_server.py started and killed.
#   . "$(dirname "$0")/grpc_lib.bash"
#   grpc_start g                   the server on a free port: $TMP/g.port, its
#                                  output (its counts, printed at exit) in $TMP/g.out
#   grpc_tls "$TMP/tls"            a folder with a self-signed certificate for
#                                  127.0.0.1 (ca.pem, key.pem) and types.proto
#   grpc_start gs "$TMP/tls/ca.pem" "$TMP/tls/key.pem"   the same over TLS
#   kill -TERM "$G_PID"; wait "$G_PID"; G_PID=""           its counts written
. "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
G_PID=""
g_cleanup() {
  [ -n "$G_PID" ] && kill "$G_PID" 2>/dev/null && wait "$G_PID" 2>/dev/null
  cleanup
}
trap g_cleanup EXIT
command -v protoc >/dev/null ||
  { notok "$(basename "$0" .sh): protoc (protobuf-compiler) is installed"; exit 1; }

# grpc_start NAME [CERT KEY]: the server, its port in $TMP/NAME.port
grpc_start() {
  local n=$1
  shift
  rm -f "$TMP/$n.port"
  "$PY" tests/tools/grpc_server.py "$TMP/$n.port" "$@" >"$TMP/$n.out" 2>"$TMP/$n.err" &
  G_PID=$!
  wait_file "$TMP/$n.port" || { notok "grpc server $n starts: $(cat "$TMP/$n.err")"; exit 1; }
}

# grpc_tls DIR: DIR with a certificate of its own for 127.0.0.1 and types.proto
grpc_tls() {
  mkdir -p "$1"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$1/key.pem" -out "$1/ca.pem" 2>/dev/null
  cp tests/e2e/scripts/grpc/types.proto "$1/"
}
