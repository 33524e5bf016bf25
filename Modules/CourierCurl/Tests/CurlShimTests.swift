import CCurl
import CourierCurl
import Foundation
import Testing

/// Each typed shim, exercised with an option of its class.
struct CurlShimTests {
    @Test func everySetoptShimAcceptsAnOptionOfItsClass() throws {
        let handle = try #require(curl_easy_init())
        defer { curl_easy_cleanup(handle) }
        #expect(courier_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, 1500) == CURLE_OK)
        #expect(courier_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, 1 << 40) == CURLE_OK)
        #expect(courier_easy_setopt_string(handle, CURLOPT_URL, "http://127.0.0.1:1/x") == CURLE_OK)
        var marker = 42
        #expect(courier_easy_setopt_pointer(handle, CURLOPT_PRIVATE, &marker) == CURLE_OK)
        let list = curl_slist_append(nil, "X-A: 1")
        defer { curl_slist_free_all(list) }
        #expect(courier_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list) == CURLE_OK)
        #expect(
            courier_easy_setopt_write_function(
                handle, CURLOPT_WRITEFUNCTION, { _, size, count, _ in size * count }) == CURLE_OK)
        #expect(
            courier_easy_setopt_read_function(handle, CURLOPT_READFUNCTION, { _, _, _, _ in 0 }) == CURLE_OK)
        #expect(
            courier_easy_setopt_seek_function(handle, CURLOPT_SEEKFUNCTION, { _, _, _ in 0 }) == CURLE_OK)
        #expect(
            courier_easy_setopt_prereq_function(handle, CURLOPT_PREREQFUNCTION, { _, _, _, _, _ in 0 })
                == CURLE_OK)
        #expect(
            courier_easy_setopt_xferinfo_function(handle, CURLOPT_XFERINFOFUNCTION, { _, _, _, _, _ in 0 })
                == CURLE_OK)
        let bytes: [UInt8] = Array("not a certificate".utf8)
        bytes.withUnsafeBufferPointer { buffer in
            var blob = curl_blob(
                data: UnsafeMutableRawPointer(mutating: buffer.baseAddress), len: buffer.count,
                flags: UInt32(CURL_BLOB_COPY))
            let result = courier_easy_setopt_blob(handle, CURLOPT_CAINFO_BLOB, &blob)
            #expect(result == CURLE_OK || result == CURLE_NOT_BUILT_IN || result == CURLE_UNKNOWN_OPTION)
        }
    }

    @Test func everyGetinfoShimReadsAnInfoOfItsClass() throws {
        let handle = try #require(curl_easy_init())
        defer { curl_easy_cleanup(handle) }
        var marker = 7
        _ = courier_easy_setopt_pointer(handle, CURLOPT_PRIVATE, &marker)
        _ = courier_easy_setopt_string(handle, CURLOPT_URL, "http://127.0.0.1:1/path")
        var status = -1
        #expect(courier_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK)
        #expect(status == 0)
        var size: curl_off_t = -1
        #expect(courier_easy_getinfo_off_t(handle, CURLINFO_SIZE_DOWNLOAD_T, &size) == CURLE_OK)
        #expect(size == 0)
        var url: UnsafeMutablePointer<CChar>?
        #expect(courier_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &url) == CURLE_OK)
        #expect(url.map { String(cString: $0) } == "http://127.0.0.1:1/path")
        var pointer: UnsafeMutableRawPointer?
        #expect(courier_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &pointer) == CURLE_OK)
        #expect(pointer?.assumingMemoryBound(to: Int.self).pointee == 7)
    }

    @Test func multiShimAndFeatureProbe() throws {
        let multi = try #require(curl_multi_init())
        defer { curl_multi_cleanup(multi) }
        #expect(courier_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 4) == CURLM_OK)
        let features = CurlFeatures.current
        #expect(!features.version.isEmpty && features.version != "unknown")
        #expect(features.encodings.contains("gzip"))
        #expect(features.tlsBackend != nil)
        #expect(features.http2PriorKnowledgeReusesConnections == !features.version.hasPrefix("7.88."))
    }
}

/// The thread-naming shim names the calling thread, as /proc shows it.
@Test func theNamingShimNamesTheCallingThread() async {
    let name = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
        Thread {
            _ = courier_name_current_thread("courier-test")
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            continuation.resume(returning: comm.trimmingCharacters(in: .whitespacesAndNewlines))
        }.start()
    }
    #expect(name == "courier-test")
}
