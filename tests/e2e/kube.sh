# The Kubernetes manifests of scripts/kubernetes/, run as written: their
# command lines are read from the YAML and run in network namespaces (one per
# pod: the console Job, each agent replica, and the target), the Service name
# resolved to the console's pod (ip netns exec's /etc/netns/NS/hosts), each
# volume at its mount path under the pod's own folder. A manifest that drifts
# from the command line, or a Service that points elsewhere, fails here.
# Needs root, ip netns and Debian's python3-yaml; elsewhere it says so and skips.
. "$(dirname "$0")/lib.bash"
PY=/usr/bin/python3
K=scripts/kubernetes

# The container's runtime stage installs the package of every library the
# binary is linked with (libc6 comes with the base image; the sanitizers only
# with this test build).
runtime=$(sed -n '/^FROM debian:bookworm-slim$/,$p' scripts/container/Containerfile | tail -n +2)
for lib in $(readelf -d "$QUERN" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev '^lib(asan|ubsan)'); do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')
  pkg=$( (dpkg -S "$path" || dpkg -S "/usr$path" || dpkg -S "$(readlink -f "$path")") 2>/dev/null | head -n 1 | cut -d: -f1)
  [ "$pkg" = libc6 ] && continue
  check "Containerfile: the runtime has $pkg (for $lib)" grep -qw -- "$pkg" <<<"$runtime"
done
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! ip netns add "qk$$" 2>/dev/null; then
  echo "ok - kubernetes manifests # SKIP needs root and ip netns"
  exit 0
fi
ip netns del "qk$$"
if ! $PY -c 'import yaml' 2>/dev/null; then
  echo "not ok - python3-yaml is installed (scripts/install-deps.sh installs it)"
  exit 0
fi

# What the manifests say, as shell assignments.
$PY - "$K" >"$TMP/k.sh" <<'PYEOF'
import glob, shlex, sys, yaml
docs = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.yaml")):
    for d in yaml.safe_load_all(open(f)):
        docs[d["kind"]] = d
dep, job, svc = docs["Deployment"], docs["Job"], docs["Service"]
def pod(spec):
    c = spec["containers"][0]
    vols = {v["name"]: v for v in spec["volumes"]}
    mounts = [(m["mountPath"], vols[m["name"]]) for m in c["volumeMounts"]]
    return c, mounts
out = {}
c, m = pod(dep["spec"]["template"]["spec"])
out["AG_CMD"] = " ".join(shlex.quote(a) for a in c["command"] + c["args"])
out["AG_MOUNTS"] = " ".join(p for p, v in m)
out["AG_TOKEN_MODE"] = oct(next(v["secret"]["defaultMode"] for p, v in m if "secret" in v))
out["AG_ROFS"] = str(c["securityContext"]["readOnlyRootFilesystem"])
out["REPLICAS"] = str(dep["spec"]["replicas"])
c, m = pod(job["spec"]["template"]["spec"])
assert c["command"] == ["sh", "-c"], c["command"]
out["JOB_SH"] = c["args"][0]
out["JOB_MOUNTS"] = " ".join(p for p, v in m)
out["JOB_TOKEN_MODE"] = oct(next(v["secret"]["defaultMode"] for p, v in m if "secret" in v))
out["JOB_PORT"] = str(c["ports"][0]["containerPort"])
out["JOB_LABELS"] = " ".join(sorted(f"{k}={v}" for k, v in job["spec"]["template"]["metadata"]["labels"].items()))
out["SVC_NAME"] = svc["metadata"]["name"]
out["SVC_PORT"] = str(svc["spec"]["ports"][0]["port"])
out["SVC_TARGET"] = str(svc["spec"]["ports"][0]["targetPort"])
out["SVC_SELECTOR"] = " ".join(sorted(f"{k}={v}" for k, v in svc["spec"]["selector"].items()))
for k, v in out.items():
    print(f"{k}={shlex.quote(v)}")
PYEOF
eq "manifests: read" "$?" 0
. "$TMP/k.sh"
eq "manifests: the agents' token is mounted mode 0600" "$AG_TOKEN_MODE" 0o600
eq "manifests: the console's token is mounted mode 0600" "$JOB_TOKEN_MODE" 0o600
eq "manifests: the agents' root file system is read-only" "$AG_ROFS" True
check "manifests: the Service selects the console Job's pods" bash -c \
  "for l in $SVC_SELECTOR; do grep -qw -- \"\$l\" <<<'$JOB_LABELS' || exit 1; done"
eq "manifests: the Service reaches the console's port" "$SVC_TARGET" "$JOB_PORT"
check "manifests: the agents dial the Service" grep -q -- "--console $SVC_NAME:$SVC_PORT" <<<"$AG_CMD"
check "manifests: the Job waits for as many agents as the Deployment has replicas" \
  grep -q -- "--agents $REPLICAS " <<<"$JOB_SH"

# The pods: a bridge in a hub namespace, the console, the agents, the target.
NS=(qkhub$$ qkcon$$)
for i in $(seq "$REPLICAS"); do NS+=("qkag$i-$$"); done
NS+=(qktgt$$)
. "$(dirname "$0")/netns_lib.bash"
trap netns_cleanup EXIT
netns_lab k 10.232.0 "${NS[@]}"
# The cluster's DNS: the Service's name is the console pod's address.
for n in "${NS[@]:1}"; do
  mkdir -p "/etc/netns/$n"
  printf '127.0.0.1 localhost\n10.232.0.1 %s\n' "$SVC_NAME" >"/etc/netns/$n/hosts"
done
TGT=10.232.0.$((REPLICAS + 2))
in_ns "${NS[-1]}" "$TARGET" --host "$TGT" --port 8080 >"$TMP/target.log" 2>&1 &
for _ in $(seq 50); do in_ns "${NS[-1]}" curl -s -o /dev/null "http://$TGT:8080/__stats" && break; sleep 0.1; done
stat() { in_ns "${NS[-1]}" curl -s "http://$TGT:8080/__stats" | jq -r "$1"; }

# Each pod's volumes: a folder per mount path, under the pod's own root.
mount_root() {  # mount_root POD MOUNTS...: makes the folders
  local pod=$1 m
  shift
  for m in "$@"; do mkdir -p "$TMP/pod-$pod$m"; done
}
rewrite() {  # rewrite POD MOUNTS... < TEXT: each mount path's uses point into the pod's root
  $PY -c '
import re, sys
root, mounts = sys.argv[1], sorted(sys.argv[2:], key=len, reverse=True)
alt = "|".join(re.escape(m) for m in mounts)
text = sys.stdin.read()
sys.stdout.write(re.sub(r"(?<![\w/.-])(" + alt + r")(?=/|[\s\x27\x22]|$)", lambda m: root + m.group(1), text))
' "$TMP/pod-$1" "${@:2}"
}
token="kube-token-of-the-tests-$$"
# The secret, as the kubelet lays it out: ..data/ and a link per key.
secret() {  # secret DIR
  mkdir -p "$1/..2026_12_01" && printf '%s\n' "$token" >"$1/..2026_12_01/token"
  chmod 600 "$1/..2026_12_01/token"
  ln -s ..2026_12_01 "$1/..data" && ln -s ..data/token "$1/token"
}
# The scenario's ConfigMap: its load is its own, so the command line is the
# manifest's as written.
mount_root con $JOB_MOUNTS
secret "$TMP/pod-con/etc/quern"
mkdir -p "$TMP/pod-con/scenario/..2026_12_01"
cat >"$TMP/pod-con/scenario/..2026_12_01/scenario.lua" <<LUA
local quern = require "quern"
local base = quern.property("base_url", "http://$TGT:8080")
local sc = quern.scenario("KUBE", { stages = { "1s:12", "2s:12" }, pacing = "300ms" })
local hit = sc:step(1, "Hit")
function sc.run(vu) hit:get(base .. "/vu/" .. vu.id):expect(404) end
LUA
ln -s ..2026_12_01 "$TMP/pod-con/scenario/..data"
ln -s ..data/scenario.lua "$TMP/pod-con/scenario/scenario.lua"
mkdir -p "$TMP/bin" && ln -s "$QUERN" "$TMP/bin/quern"
job_sh=$(rewrite con $JOB_MOUNTS <<<"$JOB_SH")
check "the Job's command uses the pod's volumes" grep -q "$TMP/pod-con/results/" <<<"$job_sh"
in_ns "${NS[1]}" env PATH="$TMP/bin:$PATH" sh -c "$job_sh" >"$TMP/job.out" 2>&1 &
JOB=$!
await "the Job's console listening on $JOB_PORT" 20 ns_listening "${NS[1]}" "$JOB_PORT"
for i in $(seq "$REPLICAS"); do
  mount_root "ag$i" $AG_MOUNTS
  secret "$TMP/pod-ag$i/etc/quern"
  cmd=$(rewrite "ag$i" $AG_MOUNTS <<<"$AG_CMD")
  eval "set -- $cmd"
  shift # "quern": the image's binary
  # A pod's host name is its own, and is the agent's default name; here the
  # namespaces share one, so each replica is named as its pod would be.
  in_ns "${NS[$((i + 1))]}" "$QUERN" "$@" --name "ag$i" >"$TMP/ag$i.log" 2>&1 &
done
wait_exit_k() { local t=$(( $2 * 10 )); while kill -0 "$1" 2>/dev/null && [ $t -gt 0 ]; do sleep 0.1; t=$((t - 1)); done; }
wait_exit_k $JOB 40
if kill -0 $JOB 2>/dev/null; then
  kill $JOB
  tail -n 3 "$TMP"/ag*.log
fi
wait $JOB
eq "the Job's pod exits 0 (the run passed) within 40 s" "$?" 0
R=$TMP/pod-con/results
S=$R/summary.json
eq "the run completed" "$(sj "$S" .run.status)" completed
for i in $(seq "$REPLICAS"); do
  check "agent replica $i played its VUs" test "$(awk -v n="ag$i" '$1==n{print $4}' "$TMP/job.out")" -gt 0
done
eq "counts = the target's" "$(sj "$S" '[.tests[].count] | add')" "$(stat .requests)"
eq "one connection per VU" "$(stat .connections)" 12
for f in quern-results.db report.html junit.xml; do
  check "the results volume holds $f" test -s "$R/$f"
done
check "the report is of this run" grep -q "KUBE" "$R/report.html"
# the agents remove a run's folder once it ended: wait for it (checked below)
no_run_folder() {
  [ -z "$(find "$TMP"/pod-ag*/work -mindepth 2 -maxdepth 2 -name 'quern-run.*' 2>/dev/null)" ]
}
wait_until 10 no_run_folder
for i in $(seq "$REPLICAS"); do
  eq "agent $i: its run folder is gone from its work volume" \
    "$(find "$TMP/pod-ag$i/work" -mindepth 2 -maxdepth 2 -name 'quern-run.*' | wc -l)" 0
done
check "no token in any output" bash -c "! grep -rqs '$token' '$R' '$TMP/job.out' $TMP/ag*.log"
