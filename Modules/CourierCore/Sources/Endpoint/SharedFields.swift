/// The stored fields of a value type, kept in one box that copies of the
/// value share until one of them changes (copy-on-write): copying an
/// ``EndpointSpec`` or a ``Node`` — which every call does — then costs one
/// reference count instead of one per field.
///
/// `@unchecked Sendable` is safe here: `fields` is only written through
/// ``unique(_:)``, which first makes sure the value holds the only
/// reference to the box (copying it otherwise). A box that more than one
/// value — and so possibly more than one thread — can see is never written,
/// only read.
final class SharedFields<Fields: Sendable>: @unchecked Sendable {
    var fields: Fields

    init(_ fields: Fields) { self.fields = fields }

    /// The box to write to: `box` itself when nothing else holds it, otherwise
    /// a copy that replaces it.
    static func unique(_ box: inout SharedFields) -> SharedFields {
        if !isKnownUniquelyReferenced(&box) { box = SharedFields(box.fields) }
        return box
    }
}
