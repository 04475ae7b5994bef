# A real nginx for the tests judged by its access log (sourced by stages.sh
# and open.sh after dist_lib.bash; run alone it does nothing).
#   start_nginx CONNECTIONS [HTTP [SERVER]]
#                             nginx on a free loopback port answering 200 "ok",
#                             logging "$msec $status $http_x_vu $uri"; sets
#                             NGINX_PID, NGBASE, LOG (killed with PIDS); HTTP
#                             and SERVER are extra lines for the http and
#                             server blocks (a limit_req zone and locations)
#   new_log                   starts a new access log
#   caught_up                 asks for /mark and waits (10 s at most) until
#                             nginx logged it: what it was sent before is
#                             logged by then (counts leave /mark out)
[ "${BASH_SOURCE[0]}" = "$0" ] && exit 0

start_nginx() {
  local nginx user_line=
  nginx=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
  if [ ! -x "$nginx" ]; then
    echo "not ok - nginx is installed (scripts/install-deps.sh installs Debian's)"
    exit 0
  fi
  NG=$TMP/nginx
  NGPORT=$(free_port_py)
  mkdir -p "$NG"
  [ "$(id -u)" = 0 ] && user_line="user $(id -un) $(id -gn);"
  cat >"$NG/nginx.conf" <<NGEOF
# written by tests/e2e/nginx_lib.bash
$user_line
daemon off;
master_process on;
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/error.log warn;
events { worker_connections $1; }
http {
    log_format vu '\$msec \$status \$http_x_vu \$uri';
    access_log $NG/access.log vu;
    client_body_temp_path $NG/body;
    proxy_temp_path $NG/proxy;
    fastcgi_temp_path $NG/fastcgi;
    uwsgi_temp_path $NG/uwsgi;
    scgi_temp_path $NG/scgi;
    ${2:-}
    server {
        listen 127.0.0.1:$NGPORT;
        ${3:-}
        location / { return 200 "ok"; }
    }
}
NGEOF
  "$nginx" -e "$NG/error.log" -c "$NG/nginx.conf" -p "$NG" &
  NGINX_PID=$!
  PIDS+=("$NGINX_PID")
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$NGPORT/" && break; sleep 0.1; done
  NGBASE="http://127.0.0.1:$NGPORT"
  LOG=$NG/access.log
}

# Starts a new access log (nginx reopens it on USR1).
new_log() {
  rm -f "$LOG"
  kill -USR1 "$NGINX_PID"
  for _ in $(seq 50); do [ -e "$LOG" ] && break; sleep 0.1; done
  curl -s -o /dev/null "$NGBASE/mark" # the log is open again once this is in it
  for _ in $(seq 50); do grep -q ' /mark$' "$LOG" 2>/dev/null && break; sleep 0.1; done
  : >"$LOG"
}

caught_up() {
  curl -s -o /dev/null "$NGBASE/mark"
  wait_for "$LOG" ' /mark$' 10
}
