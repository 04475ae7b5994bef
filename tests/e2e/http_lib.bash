# The nginx of the http_*.sh tests (sourced after lib.bash; run alone it does
# nothing): a test CA and a certificate for quern.test made with openssl,
# reached through resolve (no DNS), and five servers on free loopback ports:
#   P1 TLS + HTTP/2 (/, /auth/ with basic auth, /page/ with its cache headers,
#      /bearer), P2 TLS HTTP/1.1 (trust checks), P3 TLS with a client
#   certificate required, P4 h2c, P5 TLSv1.2 only.
#   http_nginx     makes the certificates beside the script's folder $S, the
#                  site, starts nginx; sets S, NG, LOG, P1..P5, PW, KPW, TOKEN,
#                  NGINX_PID (killed on exit with HANG_PID when set)
#   lines PORT URI nginx's lines of PORT for URI
[ "${BASH_SOURCE[0]}" = "$0" ] && exit 0

HANG_PID=
http_nginx() {
  local nginx user_line=
  nginx=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
  if [ ! -x "$nginx" ] || ! command -v openssl >/dev/null; then
    echo "not ok - nginx and openssl are installed (scripts/install-deps.sh installs them)"
    exit 0
  fi
  S=$TMP/s # the script's folder: the certificates are beside it
  NG=$TMP/nginx
  mkdir -p "$S" "$NG/www/auth" "$NG/www/gz"
  PW='S3cret-pw-4711'
  KPW='key-pass-0815'
  TOKEN='tok-4242-bearer'

  # ---- a test CA, a server certificate for quern.test, a client certificate
  (
    cd "$S" || exit 1
    ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1)
    openssl req -x509 "${ec[@]}" -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=quern-test-ca
    openssl req "${ec[@]}" -nodes -keyout srv.key -out srv.csr -subj /CN=quern.test
    printf 'subjectAltName=DNS:quern.test\n' >srv.ext
    openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2 \
      -extfile srv.ext
    openssl req "${ec[@]}" -keyout cli.key -passout "pass:$KPW" -out cli.csr -subj /CN=vu-client
    openssl x509 -req -in cli.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out cli.crt -days 2
  ) >"$TMP/openssl.log" 2>&1
  if [ ! -s "$S/cli.crt" ]; then
    notok "test CA and certificates made"
    sed 's/^/# /' "$TMP/openssl.log"
    exit 0
  fi
  printf 'alice:%s\n' "$(openssl passwd -apr1 "$PW")" >"$NG/htpasswd"
  echo "authed" >"$NG/www/auth/index.html"
  for _ in $(seq 400); do echo "quern gzip line: the body is long enough to be compressed"; done \
    >"$NG/www/gz/big.txt"
  echo "hello" >"$NG/www/index.html"
  # a page and what it embeds: fresh/ for an hour, nostore/ never kept, the
  # rest revalidated each time (nginx's ETag and Last-Modified)
  mkdir -p "$NG/www/page/fresh" "$NG/www/page/nostore" "$NG/www/page/img"
  cat >"$NG/www/page/index.html" <<'EOF'
<!doctype html><html><head><title>page</title>
<link rel="stylesheet" href="site.css"><script src="nostore/app.js"></script></head>
<body><img src="fresh/a.png"><img src="b.png" srcset="b1.png 1x, b2.png 2x">
<img src="https://thirdparty.test/x.png"><img src="missing.png"><a href="other.html">x</a></body></html>
EOF
  printf 'body { background: url(img/bg.png) }\n' >"$NG/www/page/site.css"
  printf '<html><body><img src="missing.png"><img src="fresh/a.png"></body></html>\n' >"$NG/www/page/broken.html"
  printf '<html><body><img src="fresh/c.png"></body></html>\n' >"$NG/www/page/nocache.html"
  # a page whose answer sets a cookie: its resources must carry it (ck/)
  mkdir -p "$NG/www/page/ck"
  printf '<html><body><img src="ck/a.png"><script src="ck/b.js"></script></body></html>\n' \
    >"$NG/www/page/ck.html"
  for f in fresh/a.png fresh/c.png b1.png b2.png img/bg.png nostore/app.js ck/a.png ck/b.js; do
    head -c 3000 /dev/urandom >"$NG/www/page/$f"
  done

  P1=$(free_port_py) # TLS + HTTP/2
  P2=$(free_port_py) # TLS, HTTP/1.1 (trust checks)
  P3=$(free_port_py) # TLS, client certificate required
  P4=$(free_port_py) # h2c
  P5=$(free_port_py) # TLSv1.2 only
  [ "$(id -u)" = 0 ] && user_line="user $(id -un) $(id -gn);"
  cat >"$NG/nginx.conf" <<EOF
# written by tests/e2e/http_lib.bash
$user_line
daemon off;
master_process on;
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/error.log warn;
events { worker_connections 1024; }
http {
    log_format t '\$server_port \$server_protocol \$connection \$ssl_protocol \$status '
                 '\$http_x_vu \$request_uri \$ssl_client_verify \$remote_user \$bytes_sent "\$http_accept_encoding" '
                 '"\$http_cookie" "\$sent_http_set_cookie"';
    access_log $NG/access.log t;
    client_body_temp_path $NG/body;
    proxy_temp_path $NG/proxy;
    fastcgi_temp_path $NG/fastcgi;
    uwsgi_temp_path $NG/uwsgi;
    scgi_temp_path $NG/scgi;
    root $NG/www;
    keepalive_requests 100000;
    gzip on;
    gzip_types text/plain;
    gzip_min_length 100;
    ssl_certificate $S/srv.crt;
    ssl_certificate_key $S/srv.key;
    server { listen 127.0.0.1:$P1 ssl http2; server_name quern.test;
             location / { try_files \$uri \$uri/index.html /index.html; }
             location /auth/ { auth_basic "quern"; auth_basic_user_file $NG/htpasswd; }
             location /page/ { add_header Cache-Control no-cache; }
             location = /page/ck.html { add_header Set-Cookie "ck=\$request_id; Path=/page/"; }
             location = /page/go { return 302 /page/nocache.html; }
             location /page/fresh/ { expires 1h; }
             location /page/nostore/ { add_header Cache-Control no-store; etag off;
                                       if_modified_since off; }
             location /bearer { if (\$http_authorization != "Bearer $TOKEN") { return 401; }
                                return 200 "bearer"; } }
    server { listen 127.0.0.1:$P2 ssl; server_name quern.test;
             location / { try_files \$uri /index.html; } }
    server { listen 127.0.0.1:$P3 ssl; server_name quern.test;
             ssl_verify_client on; ssl_client_certificate $S/ca.crt;
             location / { try_files \$uri /index.html; } }
    server { listen 127.0.0.1:$P5 ssl; server_name quern.test; ssl_protocols TLSv1.2;
             location / { return 200 "tls12"; } }
    server { listen 127.0.0.1:$P4 http2; server_name quern.test;
             location / { try_files \$uri /index.html; } }
}
EOF
  "$nginx" -e "$NG/error.log" -c "$NG/nginx.conf" -p "$NG" 2>"$TMP/nginx.err" &
  NGINX_PID=$!
  trap 'kill "$NGINX_PID" $HANG_PID 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; cleanup' EXIT
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$P4/" --http2-prior-knowledge && break; sleep 0.1; done
  LOG=$NG/access.log
}

lines() { awk -v p="$1" -v u="$2" '$1 == p && $7 == u' "$LOG"; }
