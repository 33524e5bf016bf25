/// Where a closure-made component (``ClosureInterceptor``,
/// ``ParameterInterceptor``, an ``EndpointMapping`` step, a
/// ``ResponseHandler``) came from, so that an error it throws can say so.
///
/// A name given at creation wins; otherwise the file and line where the
/// closure was written, which is what a reader needs to find it.
struct ComponentName: Sendable, Hashable, CustomStringConvertible {
    /// The name for errors and logs: `refresh token`, or `ClosureInterceptor at MyApp/API.swift:42`.
    let description: String

    /// Names a component explicitly, or by the place it was made.
    /// - Parameters:
    ///   - name: A name chosen by the author; `nil` to use the place.
    ///   - kind: The component's type, such as `ClosureInterceptor`.
    ///   - fileID: The file the closure was written in (`#fileID`).
    ///   - line: The line it was written on (`#line`).
    init(_ name: String?, kind: String, fileID: StaticString, line: UInt) {
        description = name ?? "\(kind) at \(fileID):\(line)"
    }
}

/// A component that knows its own name; everything else is named by its type.
protocol NamedComponent {
    var componentName: ComponentName { get }
}

/// The name an error uses for a component that threw: its own name when it
/// has one, otherwise its type (module-qualified, as `String(reflecting:)` gives it).
func componentName(of component: Any) -> String {
    if let named = component as? any NamedComponent { return named.componentName.description }
    return String(reflecting: type(of: component))
}
