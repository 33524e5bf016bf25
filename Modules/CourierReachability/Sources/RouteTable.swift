import CourierCore
import CourierResilience

/// What the kernel's routing tables say about reaching a network: every
/// link, and every default route with the interfaces it leaves through.
struct RouteTable: Equatable {
    struct Link: Equatable {
        var name: String
        /// Administratively up and running (carrier present).
        var up: Bool
        var loopback: Bool
    }

    struct DefaultRoute: Equatable {
        /// 4 or 6.
        var family: Int
        /// The interfaces it leaves through (one, or a multipath route's several).
        var interfaces: [Int32]
    }

    var links: [Int32: Link] = [:]
    var defaultRoutes: [DefaultRoute] = []

    /// Online when a default route leaves through a link that is up and
    /// not the loopback — IPv4 named first.
    var status: NetworkStatus {
        let routes = defaultRoutes.sorted { $0.family < $1.family }
        for route in routes {
            for index in route.interfaces {
                if let link = links[index], link.up, !link.loopback {
                    return .online("IPv\(route.family) default route via \(link.name)")
                }
            }
        }
        guard let route = routes.first else { return .offline("no default route") }
        let names = route.interfaces.map { links[$0]?.name ?? "interface \($0)" }.joined(separator: ", ")
        return .offline(
            "the default route leaves through \(names.isEmpty ? "no interface" : names), which is down")
    }
}
