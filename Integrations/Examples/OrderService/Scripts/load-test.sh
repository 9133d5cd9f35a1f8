#!/usr/bin/env bash
# Loads the example order service with wrk and kills it, through its HTTP API only:
#
#   1. inserts: POST /orders from 64 connections for SECONDS; orders per second;
#   2. mixed: reads by id, user filters (an indexed equality, a scan with a limit), the first
#      page, and new orders, 64 connections for SECONDS; requests per second;
#   3. graceful shutdown: SIGTERM while an events stream (`GET /orders/events`) is open; the
#      service must exit, with status 0, within 5 s, and the stream must end;
#   4. KILLS times: the service under POST load is killed with SIGKILL at a random moment; then
#      every order it acknowledged (201) must be in the file (read with realm-inspect), and the
#      file must pass `realm-inspect check`; the service is started again on the same file.
#
#   bash Integrations/Examples/OrderService/Scripts/load-test.sh [--seconds N] [--kills K]
#        [--configuration release|debug] [--skip-build]
#
# Release builds measure (the figures in the DocC article "Using RealmActors in a Server");
# CI runs a short debug pass (`--configuration debug --seconds 3 --kills 3`) on the builds its
# earlier steps made, for the kill and shutdown checks. Needs wrk and curl (Debian: apt-get
# install wrk curl). Prints, last, one line per phase and `load-test: ok`; exits 1 at the first
# failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
seconds=10 kills=5 build=1 configuration=release
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --kills) kills="$2"; shift 2 ;;
        --configuration) configuration="$2"; shift 2 ;;
        --skip-build) build=0; shift ;;
        *) echo "usage: $0 [--seconds N] [--kills K] [--configuration release|debug] [--skip-build]" >&2; exit 2 ;;
    esac
done
command -v wrk >/dev/null || { echo "load-test: wrk is missing (apt-get install wrk)" >&2; exit 1; }

if [[ $build == 1 ]]; then
    swift build -c "$configuration" --package-path "$root/Integrations" --product order-service >&2
    swift build -c "$configuration" --package-path "$root" --product realm-inspect >&2
fi
service="$(swift build -c "$configuration" --package-path "$root/Integrations" --show-bin-path)/order-service"
inspect="$(swift build -c "$configuration" --package-path "$root" --show-bin-path)/realm-inspect"

work="$(mktemp -d "${TMPDIR:-/tmp}/order-service-load.XXXXXX")"
# Below the kernel's ephemeral range: while the service is down between a kill and its restart,
# wrk keeps reconnecting, and a client socket given the service's port as its own ephemeral port
# connects to itself (TCP self-connect) and holds the port: the restart then fails to bind
# ("Address already in use"), as a CI run found.
ephemeral_start=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
port=$((10000 + RANDOM % (ephemeral_start - 10000)))
url="http://127.0.0.1:$port"
pid=
cleanup() { [[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() {
    echo "load-test: FAILED: $*" >&2
    echo "--- service log: errors, then the last 20 lines" >&2
    grep -E "Fatal error|error|Crash|at /" "$work/service.log" | head -40 >&2 || true
    tail -20 "$work/service.log" >&2 || true
    exit 1
}

# Starts the service on the file in $work and returns once it answers.
start() {
    "$service" --port "$port" --directory "$work" >>"$work/service.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do
        if curl -s -o /dev/null "$url/orders?limit=0"; then return 0; fi
        kill -0 "$pid" 2>/dev/null || fail "the service exited while starting"
        sleep 0.05  # polling for the port to open, not synchronizing a test
    done
    fail "the service did not answer within 30 s"
}

# `wrk` output → "requests/s non2xx errors"
summary() {
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rate = re.search(r"Requests/sec:\s+([\d.]+)", text)
non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
latency = re.search(r"Latency\s+(\S+)\s+(\S+)\s+(\S+)", text)
print(rate.group(1) if rate else "0", non2xx.group(1) if non2xx else "0",
      sum(map(int, errors.groups())) if errors else 0, latency.group(1) if latency else "-", latency.group(3) if latency else "-")
PY
}

start
# 1. Inserts.
wrk -t2 -c64 -d"${seconds}s" --latency -s "$here/post-orders.lua" "$url" -- 0 >"$work/inserts.txt"
read -r insert_rate insert_bad insert_errors insert_latency insert_max < <(summary "$work/inserts.txt")
[[ "$insert_bad" == 0 && "$insert_errors" == 0 ]] || { cat "$work/inserts.txt" >&2; fail "inserts: $insert_bad non-2xx, $insert_errors socket errors"; }
known=$(python3 -c "import sys; print(int(float(sys.argv[1]) * int(sys.argv[2])))" "$insert_rate" "$seconds")
# Only ids both threads surely posted are read (each posted about half).
known=$((known * 9 / 10))

# 2. Mixed.
wrk -t2 -c64 -d"${seconds}s" --latency -s "$here/mixed.lua" "$url" -- 500000000 "$known" >"$work/mixed.txt"
read -r mixed_rate mixed_bad mixed_errors mixed_latency mixed_max < <(summary "$work/mixed.txt")
[[ "$mixed_errors" == 0 ]] || { cat "$work/mixed.txt" >&2; fail "mixed: $mixed_errors socket errors"; }
# Reads of ids a thread did not reach are 404s; anything else is a failure.
[[ "$mixed_bad" -le $((known / 20 + 10)) ]] || { cat "$work/mixed.txt" >&2; fail "mixed: $mixed_bad non-2xx responses"; }

# 3. SIGTERM with an events stream open.
curl -s -N "$url/orders/events" >"$work/events.txt" 2>/dev/null &
stream=$!
for _ in $(seq 1 200); do grep -q "event: initial" "$work/events.txt" 2>/dev/null && break; sleep 0.05; done
grep -q "event: initial" "$work/events.txt" || fail "the events stream sent no initial event"
began=$(date +%s.%N)
kill -TERM "$pid"
status=0
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then fail "the service did not exit within 5 s of SIGTERM with an events stream open"; fi
wait "$pid" || status=$?
pid=
shutdown_ms=$(python3 -c "import sys,time; print(int((time.time() - float(sys.argv[1])) * 1000))" "$began")
[[ $status == 0 ]] || fail "the service exited with status $status after SIGTERM"
for _ in $(seq 1 100); do kill -0 "$stream" 2>/dev/null || break; sleep 0.05; done
kill -0 "$stream" 2>/dev/null && fail "the events stream was still open after the service exited"
wait "$stream" 2>/dev/null || true

# 4. Kills.
acknowledged_total=0
for kill_number in $(seq 1 "$kills"); do
    start
    acks="$work/acks-$kill_number" && mkdir -p "$acks"
    wrk -t2 -c64 -d4s -s "$here/post-orders.lua" "$url" -- $((kill_number * 1000000000)) "$acks" >"$work/kill-$kill_number.txt" 2>&1 &
    load=$!
    sleep "$(python3 -c "import random; print(round(random.uniform(0.5, 3.0), 2))")"  # a random moment to kill at
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
    wait "$load" || true
    "$inspect" query "$work/orders.realm" Order --format jsonl --quiet >"$work/stored.jsonl" || fail "realm-inspect could not read the file after kill $kill_number"
    result=$(python3 - "$acks" "$work/stored.jsonl" <<'PY'
import glob, json, sys
acked = set()
for name in glob.glob(sys.argv[1] + "/acks-*.txt"):
    acked.update(int(line) for line in open(name) if line.strip())
stored = set(json.loads(line)["id"] for line in open(sys.argv[2]) if line.strip())
lost = sorted(acked - stored)
print(len(acked), len(lost), lost[:5])
PY
)
    read -r acked lost _ <<<"$result"
    [[ "$lost" == 0 ]] || fail "kill $kill_number: $lost of $acked acknowledged orders are missing: $result"
    "$inspect" check "$work/orders.realm" --quiet >"$work/check.txt" 2>&1 || { cat "$work/check.txt" >&2; fail "kill $kill_number: realm-inspect check found problems"; }
    acknowledged_total=$((acknowledged_total + acked))
    echo "kill $kill_number: $acked orders acknowledged in this run, all stored" >&2
done
stored_total=$(wc -l <"$work/stored.jsonl")
size=$(du -h "$work/orders.realm" | cut -f1)

echo "build: $configuration; machine: $(nproc) cores, wrk on the same machine"
echo "inserts: ${insert_rate} orders/s (64 connections, ${seconds} s; latency avg ${insert_latency}, max ${insert_max})"
echo "mixed: ${mixed_rate} requests/s (50 % by id, 20 % filters, 10 % first page, 20 % new orders; latency avg ${mixed_latency}, max ${mixed_max}; ${mixed_bad} 404s for ids not yet posted)"
echo "shutdown: SIGTERM with an events stream open: exited 0 in ${shutdown_ms} ms, the stream ended"
echo "kills: $kills SIGKILLs under load, ${acknowledged_total} acknowledged orders, 0 lost; ${stored_total} orders in a ${size} file that passes realm-inspect check"
echo "load-test: ok"
