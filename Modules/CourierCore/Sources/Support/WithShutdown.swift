/// Runs `body` with `resource`, then `shutdown`, whether `body` returns or
/// throws: the one shape of the transports' `with…Transport` functions.
package func withShutdown<Resource, Result>(
    _ resource: Resource, shutdown: (Resource) async -> Void, _ body: (Resource) async throws -> Result
) async throws -> Result {
    let result: Result
    do {
        result = try await body(resource)
    } catch {
        await shutdown(resource)
        throw error
    }
    await shutdown(resource)
    return result
}
