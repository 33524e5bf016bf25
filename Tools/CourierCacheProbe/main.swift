// A second process for DiskStoreTests: opens a DiskStore on a directory and
// writes or reads numbered entries, so that the tests can prove two
// processes share one cache directory.
//
//     courier-cache-probe DIRECTORY put PREFIX COUNT [BODY_BYTES]
//     courier-cache-probe DIRECTORY get PREFIX COUNT
//
// `put` writes entries PREFIX-0 … PREFIX-(COUNT-1) whose body says
// "PREFIX i"; `get` prints how many of them read back intact. Exit status 0
// unless the store failed.
import CourierCache
import Foundation
import HTTPTypes

let arguments = CommandLine.arguments
guard arguments.count >= 5, let count = Int(arguments[4]) else {
    FileHandle.standardError.write(
        Data("usage: courier-cache-probe DIRECTORY put|get PREFIX COUNT [BODY_BYTES]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1])
let (command, prefix) = (arguments[2], arguments[3])
let padding = arguments.count > 5 ? Int(arguments[5]) ?? 0 : 0

func body(_ index: Int) -> [UInt8] {
    Array("\(prefix) \(index)".utf8) + [UInt8](repeating: UInt8(ascii: "."), count: padding)
}

do {
    let store = try await DiskStore.open(directory: directory)
    let now = Date()
    switch command {
    case "put":
        for index in 0..<count {
            let entry = CacheEntry(
                status: 200, headerFields: [.contentType: "text/plain"], body: body(index), storedAt: now,
                expiresAt: nil)
            try await store.store(entry, for: CacheKey(hashing: "\(prefix)-\(index)"))
        }
        print("put \(count)")
    case "get":
        var found = 0
        for index in 0..<count {
            if let entry = try await store.entry(for: CacheKey(hashing: "\(prefix)-\(index)"), now: now),
                entry.body == body(index)
            {
                found += 1
            }
        }
        print("found \(found)")
    default:
        FileHandle.standardError.write(Data("unknown command \(command)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("courier-cache-probe: \(error)\n".utf8))
    exit(1)
}
