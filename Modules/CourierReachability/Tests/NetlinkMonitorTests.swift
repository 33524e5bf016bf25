#if os(Linux)
    import CourierCore
    import CourierResilience
    import CourierReachability
    import Foundation
    import Subprocess
    import SystemPackage
    import Testing

    /// The netlink monitor against the kernel: the process's own routes,
    /// and a network namespace of the test's own whose routes and links the
    /// test changes with `ip`, the monitor following each change as it
    /// happens (waited for on its update stream, never slept on).
    @Suite(.serialized)
    struct NetlinkMonitorTests {
        @Test func itAgreesWithTheProcesssOwnRoutes() async throws {
            let monitor = try await NetlinkNetworkMonitor.start()
            defer { monitor.stop() }
            let defaults =
                try await IP.run(["route", "show", "default"])
                + IP.run(["-6", "route", "show", "default"])
            let expected = defaults.split(separator: "\n").contains { line in
                !line.contains("unreachable") && !line.contains("blackhole") && !line.contains("linkdown")
            }
            #expect(monitor.status.isOnline == expected, "\(monitor.status) vs ip route: \(defaults)")
        }

        @Test func itFollowsRoutesAndLinksInANamespace() async throws {
            let namespace = "courier-\(UUID().uuidString.prefix(8).lowercased())"
            let outside = "cv\(namespace.suffix(6))a"
            let inside = "cv\(namespace.suffix(6))b"
            do {
                _ = try await IP.run(["netns", "add", namespace])
            } catch {
                Issue.record("cannot create a network namespace (needs CAP_NET_ADMIN): \(error)")
                return
            }
            let outcome: Result<Void, any Error>
            do {
                try await Self.follow(namespace: namespace, outside: outside, inside: inside)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            _ = try? await IP.run(["link", "del", outside])
            _ = try? await IP.run(["netns", "del", namespace])
            try outcome.get()
        }

        /// Starts a monitor in `namespace`, then adds a veth pair and a default
        /// route, takes the link down and up, and deletes the route, checking
        /// the status the monitor reports after each step.
        static func follow(namespace: String, outside: String, inside: String) async throws {
            let monitor = try await NetlinkNetworkMonitor.start(networkNamespace: namespace)
            defer { monitor.stop() }
            var updates = monitor.statusUpdates().makeAsyncIterator()
            #expect(await updates.next() == .offline("no default route"))

            _ = try await IP.run([
                "link", "add", outside, "type", "veth", "peer", "name", inside, "netns", namespace,
            ])
            _ = try await IP.run(["link", "set", outside, "up"])
            _ = try await IP.run(["-n", namespace, "link", "set", inside, "up"])
            _ = try await IP.run(["-n", namespace, "addr", "add", "10.213.0.2/24", "dev", inside])
            _ = try await IP.run(["-n", namespace, "route", "add", "default", "via", "10.213.0.1"])
            let online = await Self.next(&updates) { $0.isOnline }
            #expect(online == .online("IPv4 default route via \(inside)"))

            _ = try await IP.run(["-n", namespace, "link", "set", inside, "down"])
            let down = await Self.next(&updates) { !$0.isOnline }
            #expect(down?.isOnline == false, "\(String(describing: down))")

            _ = try await IP.run(["-n", namespace, "link", "set", inside, "up"])
            _ = try await IP.run(["-n", namespace, "route", "replace", "default", "via", "10.213.0.1"])
            #expect(await Self.next(&updates) { $0.isOnline }?.isOnline == true)
            _ = try await IP.run(["-n", namespace, "route", "del", "default"])
            #expect(await Self.next(&updates) { !$0.isOnline } == .offline("no default route"))

            // The stream ends when the monitor stops.
            monitor.stop()
            while await updates.next() != nil {}
        }

        /// The next update that satisfies `predicate`; `nil` if the stream ends first.
        static func next(
            _ updates: inout AsyncStream<NetworkStatus>.Iterator, where predicate: (NetworkStatus) -> Bool
        ) async -> NetworkStatus? {
            while let status = await updates.next() {
                if predicate(status) { return status }
            }
            return nil
        }

        @Test func aMissingNamespaceIsATypedError() async {
            await #expect(throws: NetworkMonitorError.self) {
                _ = try await NetlinkNetworkMonitor.start(networkNamespace: "courier-no-such-namespace")
            }
        }
    }

    /// `ip` from iproute2.
    enum IP {
        struct Failed: Error, CustomStringConvertible {
            var description: String
        }

        static let path = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }

        /// Runs `ip arguments…` and returns what it printed; throws when it fails.
        static func run(_ arguments: [String]) async throws -> String {
            guard let path else { throw Failed(description: "iproute2's ip is not installed") }
            let result = try await Subprocess.run(
                .path(.init(path)), arguments: Arguments(arguments),
                output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
            guard result.terminationStatus.isSuccess else {
                throw Failed(
                    description: "ip \(arguments.joined(separator: " ")): \(result.standardError)")
            }
            return result.standardOutput
        }
    }
#endif
