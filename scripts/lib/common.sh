# What every script shares: build folders, Debian packages, ports, waiting,
# and timed steps. Source it from the project root (after `cd`).

# One build folder per configuration for all three packages. ContractTests
# depends on the libraries (..) and on MockServer by path: built in the root's
# folder, SwiftPM reuses what the libraries' build and the documentation build
# already compiled there (SwiftNIO, async-http-client, the libraries), instead
# of compiling all of it again in ContractTests/.build.
#
# lib_flags: the libraries as every build of this folder compiles them — the
# documentation, the linkage probe and the end-to-end package — with the
# AsyncHTTPClient trait (a trait changes every module's flags: a build
# without it would compile everything again). (--disable-index-store would
# save a tenth of a cold build, but on Linux building tests reads the index
# store to discover them.)
build_root=$PWD/.build

# link_flags: links with the toolchain's lld when it ships one (gold is the
# default on Linux): 41 executables of the end-to-end package link in 65 s of
# CPU against 90 s. A toolset's linker changes the link commands only, not
# the compiler's, so a build without it reuses every object file. Written at
# each start, through a rename (both lanes of the test command source this).
link_flags=()
lld="$(dirname "$(readlink -f "$(command -v swift)")")/ld.lld"
if [[ -x $lld ]]; then
    mkdir -p "$build_root"
    printf '{ "schemaVersion": "1.0", "linker": { "path": "%s" } }\n' "$lld" >"$build_root/lld-toolset.json.$$"
    mv -f "$build_root/lld-toolset.json.$$" "$build_root/lld-toolset.json"
    link_flags=(--toolset "$build_root/lld-toolset.json")
fi
# The traits every build of the libraries enables, in the order SwiftPM
# writes them as -D flags when Courier is a dependency (ContractTests, the
# README's manifest in scripts/check-consumer): SwiftPM keeps enabled traits
# in a Set, so the order of the flags — and with it whether a build that
# switches between the root and a dependent package reuses the other's
# object files or compiles every Courier module again — depends on the
# process's hash seed. A fixed seed makes the order the same in every run
# (SWIFT_DETERMINISTIC_HASHING, read by the Swift runtime of swift-build).
# Measured on this project: without it, each switch between the libraries'
# build and the end-to-end package's compiled CourierCore and its dependents
# again (110 CourierCore files, about 90 s on 2 cores).
export SWIFT_DETERMINISTIC_HASHING=1
lib_traits=Configuration,AsyncHTTPClient
# build_flags: how every build of the test command compiles and links. Line
# tables are the only debug information (file and line in backtraces and in
# sanitizer reports; no variables for a debugger): a cold build of the
# libraries takes 343 s of CPU against 369 s with full debug information.
# A build of the same folder with other flags compiles everything again.
build_flags=(-Xswiftc -gline-tables-only -Xcc -gline-tables-only "${link_flags[@]}")
lib_flags=(--traits "$lib_traits" "${build_flags[@]}")
e2e_flags=(--package-path ContractTests --manifest-cache none --scratch-path "$build_root" "${build_flags[@]}")
# ThreadSanitizer: the same sharing, in its own folder.
tsan_root=$PWD/.build-tsan

# Installs the Debian packages named that are missing (apt-get, as root or
# through passwordless sudo); does nothing when all are there.
ensure_debian_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    ((${#missing[@]} > 0)) || return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "missing ${missing[*]} and there is no apt-get here: install them with your package manager" >&2
        return 1
    fi
    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            echo "missing ${missing[*]}; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
            return 1
        fi
    fi
    echo "installing ${missing[*]}" >&2
    # One apt at a time: steps that run side by side may both install.
    (
        flock 9
        export DEBIAN_FRONTEND=noninteractive
        "${sudo[@]}" apt-get update -qq
        "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    ) 9>/tmp/courier-apt.lock
}

# Prints a free TCP port on 127.0.0.1.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until COMMAND... succeeds, checking every tenth of a second, for at
# most SECONDS (a safety net against a hang on a loaded machine, not a
# deadline anything is expected to meet): wait_until SECONDS COMMAND...
wait_until() {
    local limit=$1 tries
    shift
    for ((tries = limit * 10; tries > 0; tries--)); do
        "$@" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "gave up after ${limit} s waiting for: $*" >&2
    return 1
}

# Waits until 127.0.0.1:PORT accepts connections (at most SECONDS, 120 by default).
wait_for_port() {
    wait_until "${2:-120}" bash -c "exec 3<>/dev/tcp/127.0.0.1/$1"
}

# Runs COMMAND... as a named step and reports its wall time on standard
# error; the times are collected in $step_times for a summary.
step_times=${step_times:-$(mktemp)}
step() {
    local start=$SECONDS status=0
    "$@" || status=$?
    printf '%5d s  %s%s\n' $((SECONDS - start)) "$*" "$( ((status == 0)) || echo "  (FAILED: $status)")" \
        | tee -a "$step_times" >&2
    return $status
}

# Starts redis-server on a free loopback port with its files in DIR (no
# persistence), under the command prefix ${server_cpu[@]} when set; sets
# $redis_pid and $redis_port once it accepts connections.
start_redis_server() {
    local dir=$1
    redis_port=$(free_port)
    ${server_cpu[@]+"${server_cpu[@]}"} redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir" \
        --save "" --appendonly no >"$dir/redis.log" &
    redis_pid=$!
    wait_until 120 grep -q "Ready to accept" "$dir/redis.log"
}
