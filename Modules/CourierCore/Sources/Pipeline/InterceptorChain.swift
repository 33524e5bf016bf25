/// Folds a tier of interceptors around its innermost step, once: the first
/// interceptor sees the request first and the response last.
///
/// Every error leaving the chain is a ``CourierError``. One an interceptor
/// raises itself is wrapped (``CourierError/Code/interceptor``) or completed
/// (a veto) with the interceptor's name in ``CourierError/thrownBy``; one that
/// passes up from `next` is left as it is.
///
/// With `identity` (a per-attempt chain of a shared pass), each interceptor
/// sees what it declared while its hook runs (``CallContext/declaredCredential``).
enum InterceptorChain {
    static func fold(
        _ interceptors: [any Interceptor], context: CallContext, identity: PassIdentity? = nil,
        end: @escaping InterceptorNext
    ) -> InterceptorNext {
        var chain = end
        var index = interceptors.count
        while index > 0 {
            index -= 1
            let (interceptor, next) = (interceptors[index], chain)
            let declared = identity?.declaration(at: index)
            chain = { request in
                do {
                    guard let declared else {
                        return try await interceptor.intercept(request, context: context, next: next)
                    }
                    return try await DeclaredCredential.$current.withValue(declared) {
                        try await interceptor.intercept(request, context: context, next: next)
                    }
                } catch {
                    throw ErrorMapping.raised(
                        error, by: interceptor, code: .interceptor, stage: .interception,
                        what: "interceptor", request: request.head, attempt: context.attempt)
                }
            }
        }
        return chain
    }
}
