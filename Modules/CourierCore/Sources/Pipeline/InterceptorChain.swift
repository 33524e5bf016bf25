/// Folds a tier of interceptors around its innermost step, once: the first
/// interceptor sees the request first and the response last.
///
/// Every error leaving the chain is a ``CourierError``. One an interceptor
/// raises itself is wrapped (``CourierError/Code/interceptor``) or completed
/// (a veto) with the interceptor's name in ``CourierError/thrownBy``; one that
/// passes up from `next` is left as it is.
///
/// With `identity` (a per-attempt chain of a shared pass), each interceptor
/// sees what it declared in its context (``CallContext/declaredCredential``).
enum InterceptorChain {
    static func fold(
        _ interceptors: [any Interceptor], context: CallContext, identity: PassIdentity? = nil,
        end: @escaping InterceptorNext
    ) -> InterceptorNext {
        interceptors.indices.reversed().reduce(end) { next, index in
            let interceptor = interceptors[index]
            var context = context
            if let identity { context.declaredCredential = identity.declaration(at: index) }
            return { [context] request in
                do {
                    return try await interceptor.intercept(request, context: context, next: next)
                } catch {
                    throw ErrorMapping.raised(
                        error, by: interceptor, code: .interceptor, stage: .interception,
                        what: "interceptor", request: request.head, attempt: context.attempt)
                }
            }
        }
    }
}
