#!/usr/bin/env bash
# scripts/hccl_netns.sh PROGRAM PLUGIN [SECONDS]
#
# Runs an HCCL MPI test program (tests/hccl/test_hccl_mpi.c) as if on four
# hosts: four Linux network namespaces, each with its own address on one
# veth link to a bridge in a fifth namespace (the hub, where mpirun runs), so
# that the ranks can reach each other only over TCP across the links.
#
#   hub namespace: bridge br0 10.213.0.254/24, ports v0..v3
#   host i (i = 0..3): eth0 10.213.0.(i+1)/24, the other end of v<i>;
#                      its own hostname too (a UTS namespace) where unshare exists
#
# mpirun takes the four addresses from a hostfile (one slot each: rank i on
# host i) and starts its daemon on each through a launch agent in place of
# ssh (plm_rsh_agent), which runs the command in that host's namespace. MPI
# is told to use TCP on the subnet only (btl tcp,self; pml ob1; the runtime's
# out-of-band channel on the subnet too): no shared memory between ranks.
#
# It passes when mpirun exits 0, every rank ran in the namespace of its host
# (the inode of /proc/self/ns/net, read by each rank before the program
# starts; all four differ), every rank saw btl tcp,self in force, and each
# host's link received at least the data that two of the test's collectives
# must bring to it (AllGather and AlltoAll on eight types: 2 * 3 * COUNT *
# 43 bytes, COUNT from the test's source). It prints the timings and the
# bytes each link carried.
#
# Everything it makes is named aclhn<pid>-* (namespaces) or lives under a
# temporary directory, and is removed on exit, whatever the outcome. Where
# the machine does not allow it (not root, no `ip`, namespaces, veth or
# bridges refused) it prints "skipped: <why>" and exits 0.
#
# Settings: MPIRUN (mpirun), HCCL_NETNS_SUBNET (10.213.0: the first three
# octets; the namespaces are apart from the machine's own network, so any
# subnet does).
set -u

program=${1:?usage: $0 PROGRAM PLUGIN [SECONDS]}
plugin=${2:?usage: $0 PROGRAM PLUGIN [SECONDS]}
limit=${3:-300}
mpirun=${MPIRUN:-mpirun}
net=${HCCL_NETNS_SUBNET:-10.213.0}
np=4
here=$(cd "$(dirname "$0")/.." && pwd)
source_file=$here/tests/hccl/test_hccl_mpi.c

skip() {
    echo "hccl-netns: skipped: $*"
    exit 0
}
fail() {
    echo "hccl-netns: FAIL: $*" >&2
    exit 1
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

[ "$(id -u)" = 0 ] || skip "not root (network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN)"
command -v ip >/dev/null 2>&1 || skip "no \`ip\` (iproute2) on this machine"
command -v "$mpirun" >/dev/null 2>&1 || skip "no $mpirun"
[ -x "$program" ] || fail "$program: not an executable (build it first)"
[ -f "$plugin" ] || fail "$plugin: no MPI engine plugin (build it first)"
program=$(cd "$(dirname "$program")" && pwd)/$(basename "$program")
plugin=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin")

pfx=aclhn$$
hub=$pfx-hub
made=()
dir=$(mktemp -d "/tmp/$pfx.XXXXXX") || fail "no temporary directory"

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    # Whatever still runs in our namespaces is ours (mpirun, its daemons, the ranks): ended by id.
    exec 3>&2 2>/dev/null # not a word from bash on the jobs it kills
    for ns in "${made[@]}"; do
        local pids
        pids=$(ip netns pids "$ns")
        [ -n "$pids" ] && kill -9 $pids
    done
    wait
    exec 2>&3 3>&-
    for ns in "${made[@]}"; do
        ip netns del "$ns" 2>/dev/null || echo "hccl-netns: could not remove namespace $ns" >&2
    done
    rm -rf "$dir"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the network: a hub with a bridge, four hosts on it ----
t0=$(now)
ip netns add "$hub" 2>"$dir/err" || skip "network namespace creation refused: $(cat "$dir/err")"
made+=("$hub")
ip -n "$hub" link set lo up || fail "lo up in $hub"
ip -n "$hub" link add br0 type bridge 2>"$dir/err" || skip "bridge creation refused: $(cat "$dir/err")"
ip -n "$hub" addr add "$net.254/24" dev br0 && ip -n "$hub" link set br0 up || fail "br0 in $hub"
for ((i = 0; i < np; i++)); do
    ns=$pfx-h$i
    ip netns add "$ns" 2>"$dir/err" || skip "network namespace creation refused: $(cat "$dir/err")"
    made+=("$ns")
    # Both ends are made inside the namespaces: nothing appears in the machine's own.
    ip link add eth0 netns "$ns" type veth peer name "v$i" netns "$hub" 2>"$dir/err" ||
        skip "veth creation refused: $(cat "$dir/err")"
    ip -n "$hub" link set "v$i" master br0 && ip -n "$hub" link set "v$i" up || fail "v$i on br0"
    ip -n "$ns" addr add "$net.$((i + 1))/24" dev eth0 || fail "address on $ns"
    ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up || fail "links up in $ns"
done
# IPv6 off inside: its neighbour discovery would add to the links' counters (best effort).
for ns in "${made[@]}"; do
    ip netns exec "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null
done

# ---- the launch agent (ssh's place), the hostfile, the rank wrapper ----
uts=0
command -v unshare >/dev/null 2>&1 && ip netns exec "$hub" unshare --uts true 2>/dev/null && uts=1
{
    echo '#!/bin/sh'
    echo '# AGENT [options] HOST COMMAND...: runs COMMAND in HOST'"'"'s namespace, as ssh would on HOST.'
    echo 'while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done'
    echo 'host=$1; shift'
    echo 'case $host in'
    for ((i = 0; i < np; i++)); do echo "$net.$((i + 1))) i=$i ;;"; done
    echo '*) echo "agent: unknown host $host" >&2; exit 255 ;;'
    echo 'esac'
    echo "ns=$pfx-h\$i"
    echo "echo \"\$host \$ns\" >>$dir/agent.log"
    # Each host its own session directory, as on separate machines (the file system is shared here).
    echo "mkdir -p $dir/tmp\$i"
    echo "env=\"OMPI_MCA_orte_tmpdir_base=$dir/tmp\$i; export OMPI_MCA_orte_tmpdir_base;\""
    if [ $uts = 1 ]; then
        echo 'exec ip netns exec "$ns" unshare --uts /bin/sh -c "hostname $ns && $env $*"'
    else
        echo 'exec ip netns exec "$ns" /bin/sh -c "$env $*"'
    fi
} >"$dir/agent"
chmod +x "$dir/agent"
for ((i = 0; i < np; i++)); do echo "$net.$((i + 1)) slots=1"; done >"$dir/hostfile"
cat >"$dir/rank.sh" <<EOF
#!/bin/sh
# Notes where this rank runs and what MPI was told, then becomes the program.
r=\${OMPI_COMM_WORLD_RANK:-unknown}
echo "\$r \$(stat -L -c %i /proc/self/ns/net) \$(hostname) btl=\${OMPI_MCA_btl:-} pml=\${OMPI_MCA_pml:-}" >$dir/rank.\$r
exec "\$@"
EOF
chmod +x "$dir/rank.sh"

counters() { # rx and tx bytes of each host's link, one host a line
    for ((i = 0; i < np; i++)); do
        ip netns exec "$pfx-h$i" cat /sys/class/net/eth0/statistics/rx_bytes /sys/class/net/eth0/statistics/tx_bytes |
            tr '\n' ' '
        echo
    done
}
mapfile -t before < <(counters)
t1=$(now)

# ---- the run ----
# shellcheck disable=SC2054 # tcp,self is one argument
flags=(--hostfile "$dir/hostfile" --mca plm_rsh_agent "$dir/agent"
    --mca pml ob1 --mca btl tcp,self
    --mca btl_tcp_if_include "$net.0/24" --mca oob_tcp_if_include "$net.0/24")
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
echo "hccl-netns: $np ranks in namespaces $pfx-h0..h$((np - 1)) ($net.1-$np on bridge br0 in $hub), MPI over TCP only"
ip netns exec "$hub" env ACLRT_HCCL_MPI_PLUGIN="$plugin" timeout -k 10 "$limit" \
    "$mpirun" "${flags[@]}" -x ACLRT_HCCL_MPI_PLUGIN -np $np "$dir/rank.sh" "$program" >"$dir/run.log" 2>&1 &
wait $! # in the background, so that a signal to this script ends it (and the cleanup) at once
rc=$?
t2=$(now)
mapfile -t after < <(counters)

if [ $rc != 0 ]; then
    cat "$dir/run.log"
    [ $rc = 124 ] && fail "mpirun did not finish within $limit s"
    fail "mpirun exited $rc"
fi
grep 'cases passed\|FAIL' "$dir/run.log"

# ---- the ranks were apart ----
root_inode=$(stat -L -c %i /proc/self/ns/net)
hub_inode=$(stat -L -c %i "/run/netns/$hub")
declare -A seen=()
for ((r = 0; r < np; r++)); do
    [ -f "$dir/rank.$r" ] || fail "rank $r left no note (it did not start through the wrapper)"
    read -r _ inode host btl pml <"$dir/rank.$r"
    want=$(stat -L -c %i "/run/netns/$pfx-h$r")
    [ "$inode" = "$want" ] || fail "rank $r ran in network namespace $inode, not $pfx-h$r's ($want)"
    [ "$inode" != "$root_inode" ] && [ "$inode" != "$hub_inode" ] || fail "rank $r ran outside the hosts"
    [ -z "${seen[$inode]:-}" ] || fail "ranks ${seen[$inode]} and $r share network namespace $inode"
    seen[$inode]=$r
    [ "$btl" = "btl=tcp,self" ] && [ "$pml" = "pml=ob1" ] || fail "rank $r: MPI was told $btl $pml, not btl=tcp,self pml=ob1"
    echo "hccl-netns: rank $r: network namespace $inode ($pfx-h$r), hostname $host, $btl $pml"
done
launched=$(sort -u "$dir/agent.log" | wc -l)
[ "$launched" = $np ] || fail "the launch agent started $launched hosts, not $np"

# ---- the data crossed the links ----
count=$(sed -n 's/^#define COUNT \([0-9][0-9]*\).*/\1/p' "$source_file")
[ -n "$count" ] || fail "no COUNT in $source_file"
# Each rank receives, from the others, (np-1) blocks of COUNT elements in AllGather and again in
# AlltoAll, for each of the eight types of the first case (1+2+2+4+8+2+8+16 = 43 bytes an element).
need=$((2 * (np - 1) * count * 43))
total=0
for ((i = 0; i < np; i++)); do
    read -r rx0 tx0 <<<"${before[$i]}"
    read -r rx1 tx1 <<<"${after[$i]}"
    rx=$((rx1 - rx0)) tx=$((tx1 - tx0))
    total=$((total + rx))
    echo "hccl-netns: link of $pfx-h$i ($net.$((i + 1))): received $rx bytes, sent $tx (at least $need must arrive)"
    [ $rx -ge $need ] || fail "host $i's link received $rx bytes, less than the $need the test moves to it"
done
echo "hccl-netns: network set up in $(secs "$t0" "$t1") s; mpirun ran $(secs "$t1" "$t2") s;" \
    "$total bytes received over the links in all"
echo "hccl-netns: $np ranks on $np simulated hosts, TCP only: passed"
