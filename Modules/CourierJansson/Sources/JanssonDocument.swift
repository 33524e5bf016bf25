import CJansson
import CJanssonArena

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parsed jansson tree and the one reference that keeps it alive.
///
/// Ownership rules, for every jansson call in this module:
/// - `json_loadb` returns a *new* reference: the document owns it. When the
///   tree was built in an arena (the default, ``JanssonOptions/arena``) every
///   node lives in the arena's blocks and `deinit` releases the arena in one
///   go, with no `json_decref` walk; otherwise `deinit` `json_decref`s the
///   root exactly once.
/// - `json_object_getn`, `json_array_get` and `json_object_iter_value` return
///   *borrowed* references: valid while the document lives, never decref'd.
///   Every borrowed pointer is used inside a call that holds the document.
/// - Nothing here calls `json_incref`, and no borrowed pointer is stored past
///   the document's life: a decoder keeps the document in a strong reference.
///
/// The tree is never changed after parsing, so reading it from several
/// threads is safe; jansson's reference counts are atomic in this build.
final class JanssonDocument: @unchecked Sendable {
    // @unchecked: the tree is immutable after parsing (reads only, from any
    // thread), and its single reference is released once, in deinit.
    let root: UnsafeMutablePointer<json_t>
    /// The arena the tree was built in, if it was.
    private let arena: OpaquePointer?

    private init(root: UnsafeMutablePointer<json_t>, arena: OpaquePointer?) {
        self.root = root
        self.arena = arena
    }

    deinit {
        if let arena {
            courier_arena_free(arena)
        } else {
            json_decref(root)
        }
    }

    /// Parses `bytes` under `options`' limits.
    /// - Throws: ``JanssonError`` with the line, column and byte offset of the problem.
    static func parse(_ bytes: [UInt8], options: JanssonOptions) throws(JanssonError) -> JanssonDocument {
        guard bytes.count <= options.maxInputSize else {
            throw JanssonError(
                .inputTooLarge, "the input is \(bytes.count) bytes, over the \(options.maxInputSize) limit")
        }
        var input = bytes
        var skipped = 0
        // RFC 8259 §8.1: a parser may ignore a leading byte order mark; JSONDecoder does.
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { skipped = 3 }
        if options.invalidUTF8 == .replace, String(validating: input[skipped...], as: UTF8.self) == nil {
            input = Array(String(decoding: input[skipped...], as: UTF8.self).utf8)
            skipped = 0
        }
        // A raw NUL byte is never valid JSON (inside strings it must be
        // written \u0000), but jansson's reader stops at one and would accept
        // whatever came before it.
        let nul = input.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, raw.count > skipped,
                let found = memchr(base + skipped, 0, raw.count - skipped)
            else { return nil }
            return base.distance(to: found)
        }
        if let nul { throw JanssonError(.syntax, "a NUL byte at offset \(nul)", offset: nul) }
        var error = json_error_t()
        let flags = courier_json_load_flags(options.rejectDuplicateKeys ? 1 : 0)
        // The hooks go in before the first tree is made, arena or not, so that
        // every tree this module frees was allocated through them.
        courier_jansson_install_allocator()
        // Only this thread's allocations during this call go to the arena.
        let arena = options.arena ? courier_arena_begin(input.count) : nil
        let parsed = input.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                    json_loadb(chars + skipped, buffer.count - skipped, flags, &error)
                }
            } ?? nil
        }
        if arena != nil { courier_arena_end() }
        guard let parsed else {
            courier_arena_free(arena)
            throw JanssonError(parsing: error, empty: input.count == skipped)
        }
        // Depth is checked by the readers as they descend (JSONValue, the
        // decoder): a separate walk here would cost a second pass over the tree.
        return JanssonDocument(root: parsed, arena: arena)
    }
}
