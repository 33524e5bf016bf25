# What several checks walk, written down once. Source it from the project root.

# The library modules: each has a DocC catalog (scripts/check-docs) and a
# public API dump in api/ (scripts/check-api).
library_modules=(
    Courier CourierCore CourierCodable CourierTesting CourierCurl CourierJansson CourierURLSession
    CourierCache CourierCacheRedis CourierPlugins CourierCookies CourierAsyncHTTPClient CourierOpenAPI
    CourierReachability CourierConfiguration CourierResilience CourierPagination CourierAuthentication
    CourierStreamFormats CourierTLS CourierConcurrencyGroups CourierTargets CourierTransfers
    CourierMultipart CourierProxies CourierRedis CourierFleet CourierWebSocket
)

# Prints the Markdown files whose Swift examples users copy — the READMEs and
# the DocC articles — one a line (scripts/check-snippets compiles them,
# scripts/lint formats them).
documented_files() {
    local file
    for file in README.md Modules/*/README.md MockServer/README.md Benchmarks/README.md docs/*.md \
        Modules/*/Sources/*.docc/*.md; do
        if [[ -f $file ]]; then echo "$file"; fi
    done
}
