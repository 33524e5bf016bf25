# Shared by the benchmark scripts: nginx on loopback serving a folder, pinned
# to core 0 with the client on core 1 when there are two cores (as the
# reference prototype was measured). Source it, put files in "$nginx_work/www",
# call start_nginx; it sets $nginx_port and $client_cpu (a command prefix).
# Optional, set before start_nginx: nginx_connections (worker connections,
# 1024), nginx_main (top-level directives), nginx_http (in the http block);
# for directives in the
# server block: define nginx_server_for_port, a function given the port that
# prints them).

source scripts/lib/common.sh

# The machine as a run finds it, for the results it writes (BenchSupport puts
# $BENCH_MACHINE under the tables): the commit, the hardware, the load at the
# start, the libraries measured.
bench_machine_state() {
    local commit
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    # The run's own tables, written as it goes, do not count as changes.
    [[ -z $(git status --porcelain --untracked-files=no -- . ':!Benchmarks/results' 2>/dev/null) ]] || commit+=" with uncommitted changes"
    echo "- started $(date -u '+%Y-%m-%d %H:%M UTC') at commit $commit"
    echo "- $(nproc) cores ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Linux $(uname -r)"
    echo "- load average at the start $(cut -d' ' -f1-3 /proc/loadavg), up $(awk '{printf "%.1f h", $1 / 3600}' /proc/uptime)"
    echo "- libcurl $(curl-config --version 2>/dev/null | cut -d' ' -f2 || echo '?'), $(swift --version 2>/dev/null | head -n 1 | sed 's/ (.*//')"
}
BENCH_MACHINE=$(bench_machine_state)
export BENCH_MACHINE

ensure_nginx() {
    command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || ensure_debian_packages nginx-light
    nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
    nginx_work=$(mktemp -d)
    mkdir -p "$nginx_work/www" "$nginx_work/logs"
    chmod 755 "$nginx_work" "$nginx_work/www"  # nginx workers run as an unprivileged user
    trap stop_nginx EXIT
}

start_nginx() {
    chmod 644 "$nginx_work"/www/*
    nginx_port=$(free_port)
    cat >"$nginx_work/nginx.conf" <<CONF
${nginx_main:-}
worker_processes 1;
worker_rlimit_nofile $(( ${nginx_connections:-1024} * 2 + 64 ));
pid $nginx_work/nginx.pid;
error_log $nginx_work/logs/error.log error;
events { worker_connections ${nginx_connections:-1024}; }
http {
    access_log off;
    sendfile on;
    keepalive_requests 1000000;
    types { application/json json; }
    ${nginx_http:-}
    server {
        listen 127.0.0.1:$nginx_port;
        root $nginx_work/www;
        default_type application/octet-stream;
        $(declare -F nginx_server_for_port >/dev/null && nginx_server_for_port "$nginx_port")
    }
}
CONF
    local server_cpu=()
    client_cpu=()
    if command -v taskset >/dev/null && (($(nproc) >= 2)); then
        server_cpu=(taskset -c 0)
        client_cpu=(taskset -c 1)
    fi
    "${server_cpu[@]}" "$nginx_bin" -p "$nginx_work" -c "$nginx_work/nginx.conf"
}

stop_nginx() {
    "$nginx_bin" -p "$nginx_work" -c "$nginx_work/nginx.conf" -s stop 2>/dev/null || true
    rm -rf "$nginx_work"
}
