import CPSL

/// The Public Suffix List, through libpsl (Debian's `libpsl-dev`, the
/// library curl and wget use): the newest of the list compiled into libpsl
/// and the one the system's `publicsuffix` package keeps up to date.
///
/// A cookie whose `Domain` is a public suffix (`com`, `co.uk`, `github.io`)
/// would reach every site under it; ``CookieJar`` refuses it (RFC 6265
/// §5.3 step 5). Names under no listed suffix fall under the list's `*`
/// rule: their last label is a public suffix (`localhost`, `test`).
enum PublicSuffixList {
    /// libpsl's context, loaded once for the process and never freed.
    ///
    /// `@unchecked Sendable` is safe: libpsl never writes to a context after
    /// `psl_latest` returns it, and its lookups only read it (libpsl
    /// documents them as thread-safe); the pointer itself never changes.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer?
    }

    private static let context = Context(pointer: psl_latest(nil) ?? psl_builtin())

    /// Whether `domain` (lowercase ASCII, no leading dot) is a public suffix.
    /// Without a list at all (libpsl built without one and no system file),
    /// every single-label name counts as one, which still refuses `com`.
    static func isPublicSuffix(_ domain: String) -> Bool {
        guard let pointer = context.pointer else { return !domain.contains(".") }
        return psl_is_public_suffix2(pointer, domain, Int32(PSL_TYPE_ANY)) != 0
    }
}
