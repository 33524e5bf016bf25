// JSONValue and JSONObject live in CourierCodable (the one client-side JSON
// tree; EnvelopeUnwrapper reads into it too). Re-exported so that
// `import CourierJansson` keeps offering them beside `JSONValue(parsing:)`.
@_exported import CourierCodable
