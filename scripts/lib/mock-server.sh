# Shared by scripts that run courier-mock as a user would. Source it, then
# call start_mock_server; it sets $mock_pid, $mock_port, $mock_out and
# $mock_err and fails the script if no port line arrives. The caller stops
# the server (stop_mock_server) or lets its EXIT trap kill $mock_pid.
#
# courier-mock is taken from the package in $mock_package: MockServer (its own
# package, what the demo builds) by default; the test command sets it to
# ContractTests, which builds the same product as a dependency, so that
# SwiftNIO is built once per run.
mock_package=${mock_package:-MockServer}
source scripts/lib/common.sh
# ContractTests' manifest lists the README examples that scripts/check-snippets
# extracted, so its evaluation must not come from SwiftPM's manifest cache.
# Built in the root's folder, as every package here (scripts/lib/common.sh),
# with the flags every build of it uses (other flags would build courier-mock
# again, and the next build of the folder once more).
package_flags=(--package-path "$mock_package" --manifest-cache none --scratch-path "$build_root" "${build_flags[@]}")

build_mock_server() {
    swift build "${package_flags[@]}" --product courier-mock "$@"
}

# For benchmarks and the soak: builds courier-mock in release mode and sets
# $mock_binary, so that launch_courier_mock runs it.
build_release_mock_server() {
    swift build "${package_flags[@]}" -c release --product courier-mock >&2
    mock_binary="$(swift build "${package_flags[@]}" -c release --show-bin-path)/courier-mock"
}

# Starts courier-mock with ARGS (a subcommand and its options; the port and
# log level are added), its output in OUT and errors in ERR; sets
# $launched_pid and $launched_port once its one machine-readable line arrives.
# The binary is $mock_binary when set (a release build: build_release_mock_server),
# else the debug build of $mock_package; $mock_cpu, when set, is a command
# prefix (taskset) it runs under.
launch_courier_mock() {
    local out=$1 err=$2 binary=${mock_binary:-}
    shift 2
    [[ -n $binary ]] || binary="$(swift build "${package_flags[@]}" --show-bin-path)/courier-mock"
    ${mock_cpu[@]+"${mock_cpu[@]}"} "$binary" "$@" --port 0 --log-level warning >"$out" 2>"$err" &
    launched_pid=$!
    # Wait (at most two minutes, a safety net for a loaded machine) for the line.
    # It may also exit first (a bad contract, a port in use): then at once.
    wait_until 120 test -s "$out" -o ! -e "/proc/$launched_pid" || true
    if [[ ! -s $out ]]; then
        echo "courier-mock printed no port line (it exited, or two minutes passed):" >&2
        cat "$err" >&2
        return 1
    fi
    local line
    line=$(head -n 1 "$out")
    launched_port=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1])["listening"]; assert isinstance(d["port"], int) and d["port"] > 0; print(d["port"])' "$line") \
        || { echo "unexpected first line from courier-mock: $line" >&2; return 1; }
}

start_mock_server() {
    mock_out=$(mktemp)
    mock_err=$(mktemp)
    launch_courier_mock "$mock_out" "$mock_err" --contracts ContractTests/Contracts
    mock_pid=$launched_pid
    mock_port=$launched_port
}

# Stops the server with SIGTERM; fails unless it exits cleanly.
stop_mock_server() {
    kill -TERM "$mock_pid"
    local status=0
    wait "$mock_pid" || status=$?
    [[ $status -eq 0 ]] || { echo "courier-mock: exit status $status after SIGTERM" >&2; cat "$mock_err" >&2; return 1; }
}
