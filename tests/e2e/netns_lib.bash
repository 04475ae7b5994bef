# A lab of network namespaces (sourced by dist_netns.sh and kube.sh after
# lib.bash; run alone it does nothing). Needs root and ip netns.
#   netns_lab TAG SUBNET HUB NS...  HUB holds a bridge; each NS (in order, i
#                                   from 1) gets SUBNET.i/24 on its eth0, a
#                                   veth "TAGi-PID" into the bridge, and lo up
#   in_ns NS CMD...                 runs CMD in NS
#   ns_listening NS PORT            something listens on TCP PORT in NS
#   netns_cleanup                   kills what runs in the lab's namespaces,
#                                   removes them and their /etc/netns/NS
#                                   folders, then lib.bash's cleanup
[ "${BASH_SOURCE[0]}" = "$0" ] && exit 0

NETNS_LAB=()
in_ns() { local n=$1; shift; ip netns exec "$n" "$@"; }
ns_listening() { [ -n "$(in_ns "$1" ss -Hltn "sport = :$2")" ]; }
# ns_empty NS...: no process runs in any of them.
ns_empty() {
  local n
  for n in "$@"; do [ -z "$(ip netns pids "$n" 2>/dev/null)" ] || return 1; done
}
netns_lab() {
  local tag=$1 subnet=$2 hub=$3 i=1 n
  shift 3
  NETNS_LAB=("$hub" "$@")
  ip netns add "$hub"
  in_ns "$hub" ip link add br0 type bridge
  in_ns "$hub" ip link set br0 up
  for n in "$@"; do
    ip netns add "$n"
    ip link add "$tag$i-$$" type veth peer name eth0 netns "$n"
    ip link set "$tag$i-$$" netns "$hub"
    in_ns "$hub" ip link set "$tag$i-$$" master br0 up
    in_ns "$n" ip addr add "$subnet.$i/24" dev eth0
    in_ns "$n" ip link set eth0 up
    in_ns "$n" ip link set lo up
    i=$((i + 1))
  done
}
netns_cleanup() {
  local n
  for n in "${NETNS_LAB[@]}"; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
  wait_until 5 ns_empty "${NETNS_LAB[@]}"
  for n in "${NETNS_LAB[@]}"; do ip netns del "$n" 2>/dev/null; rm -rf "/etc/netns/$n"; done
  cleanup
}
