// The umbrella: one import for the common set of Courier modules, with the
// transport each platform can link (Package.swift's conditions, mirrored).
@_exported import CourierAuthentication
@_exported import CourierCodable
@_exported import CourierConcurrencyGroups
@_exported import CourierCore
@_exported import CourierMultipart
@_exported import CourierPagination
@_exported import CourierProxies
@_exported import CourierResilience
@_exported import CourierStreamFormats
@_exported import CourierTLS
@_exported import CourierTargets
@_exported import CourierTransfers
@_exported import HTTPTypes

#if os(Linux) || os(macOS)
    @_exported import CourierCurl
#endif
#if canImport(Darwin)
    @_exported import CourierURLSession
#endif
