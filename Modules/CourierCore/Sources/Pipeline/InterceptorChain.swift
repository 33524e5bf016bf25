/// Folds a tier of interceptors around its innermost step, once: the first
/// interceptor sees the request first and the response last.
///
/// Every error leaving the chain is a ``CourierError``. One an interceptor
/// raises itself is wrapped (``CourierError/Code/interceptor``) or completed
/// (a veto) with the interceptor's name in ``CourierError/thrownBy``; one that
/// passes up from `next` is left as it is.
enum InterceptorChain {
    static func fold(
        _ interceptors: [any Interceptor], context: CallContext, end: @escaping InterceptorNext
    ) -> InterceptorNext {
        interceptors.reversed().reduce(end) { next, interceptor in
            { request in
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
