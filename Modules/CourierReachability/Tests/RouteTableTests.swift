import CourierCore
import CourierResilience
import Testing

@testable import CourierReachability

/// When a routing table means online.
struct RouteTableTests {
    let links: [Int32: RouteTable.Link] = [
        1: .init(name: "lo", up: true, loopback: true),
        2: .init(name: "eth0", up: true, loopback: false),
        3: .init(name: "wlan0", up: false, loopback: false),
    ]

    @Test func aDefaultRouteThroughAnUpLinkIsOnline() {
        let table = RouteTable(
            links: links,
            defaultRoutes: [.init(family: 6, interfaces: [2]), .init(family: 4, interfaces: [2])])
        #expect(table.status == .online("IPv4 default route via eth0"))
    }

    @Test func downLinksTheLoopbackAndNoRouteAreOffline() {
        #expect(RouteTable(links: links, defaultRoutes: []).status == .offline("no default route"))
        let down = RouteTable(links: links, defaultRoutes: [.init(family: 4, interfaces: [3])])
        #expect(down.status == .offline("the default route leaves through wlan0, which is down"))
        let loopback = RouteTable(links: links, defaultRoutes: [.init(family: 4, interfaces: [1])])
        #expect(!loopback.status.isOnline)
        // A multipath route with one hop up is enough.
        let multipath = RouteTable(links: links, defaultRoutes: [.init(family: 4, interfaces: [3, 2])])
        #expect(multipath.status.isOnline)
    }
}
