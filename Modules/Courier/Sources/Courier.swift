// The umbrella: one import for the common set of Courier modules.
@_exported import CourierCodable
@_exported import CourierCore
@_exported import CourierCurl
@_exported import HTTPTypes
