/// A parameter value: Sendable and typed, never `Any`.
///
/// Literals make it read like a dictionary:
/// `["page": 1, "tags": ["a", "b"], "filter": ["min": 3], "draft": false]`.
public indirect enum ParameterValue: Sendable, Hashable {
    /// Text.
    case string(String)
    /// A whole number.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A boolean; its text form is chosen by ``ParameterEncoding/BoolStyle``.
    case bool(Bool)
    /// No value; ``ParameterEncoding/NullStyle`` decides whether it is sent.
    case null
    /// A list; ``ParameterEncoding/ArrayStyle`` decides its keys.
    case array([ParameterValue])
    /// Nested keys, in order; encoded as `outer[inner]=value`.
    case object(Parameters)
}

extension ParameterValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `nil`.
    public init(nilLiteral: ()) { self = .null }
    /// An array literal.
    public init(arrayLiteral elements: ParameterValue...) { self = .array(elements) }
    /// A dictionary literal; order is kept.
    public init(dictionaryLiteral elements: (String, ParameterValue)...) {
        self = .object(Parameters(elements))
    }
}

/// Ordered parameters: keys keep the order they were written in, so encoded
/// queries, forms and cache keys are deterministic.
public struct Parameters: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// The key–value pairs, in order.
    public private(set) var pairs: [(key: String, value: ParameterValue)]

    /// Creates parameters from pairs; a repeated key keeps its last value, in
    /// the position of its first.
    public init(_ pairs: some Sequence<(String, ParameterValue)>) {
        self.pairs = []
        for (key, value) in pairs { self[key] = value }
    }

    /// A dictionary literal; order is kept.
    public init(dictionaryLiteral elements: (String, ParameterValue)...) {
        self.init(elements)
    }

    /// No parameters.
    public static let empty = Parameters([])

    /// Whether there are no parameters.
    public var isEmpty: Bool { pairs.isEmpty }

    /// The value for a key; setting `nil` removes the key.
    public subscript(key: String) -> ParameterValue? {
        get { pairs.first { $0.key == key }?.value }
        set {
            if let index = pairs.firstIndex(where: { $0.key == key }) {
                if let newValue { pairs[index].value = newValue } else { pairs.remove(at: index) }
            } else if let newValue {
                pairs.append((key, newValue))
            }
        }
    }

    /// These parameters with `other`'s added; `other` wins on equal keys.
    public func merging(_ other: Parameters) -> Parameters {
        var result = self
        for (key, value) in other.pairs { result[key] = value }
        return result
    }

    /// Iterates the pairs in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: ParameterValue)]> {
        pairs.makeIterator()
    }

    /// Equal when the same keys map to equal values in the same order.
    public static func == (lhs: Parameters, rhs: Parameters) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    /// Hashes keys and values in order.
    public func hash(into hasher: inout Hasher) {
        for (key, value) in pairs {
            hasher.combine(key)
            hasher.combine(value)
        }
    }
}
