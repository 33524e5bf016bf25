extension JSONValue: Decodable {
    /// Reads any JSON value through any `Decoder` (JSONDecoder, CourierJansson's JanssonDecoder,
    /// or one nested in a model): objects, arrays, `null`, Booleans, numbers
    /// that fit in `Int64` as integers, other numbers as reals, strings.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var object = JSONObject()
            for key in container.allKeys {
                object.append(key.stringValue, try container.decode(JSONValue.self, forKey: key))
            }
            self = .object(object)
        } else if var container = try? decoder.unkeyedContainer() {
            var array: [JSONValue] = []
            while !container.isAtEnd { array.append(try container.decode(JSONValue.self)) }
            self = .array(array)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int64.self) {
                self = .int(value)
            } else if let value = try? single.decode(Double.self) {
                self = .double(value)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }
}
