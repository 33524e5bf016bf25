import Logging
import NIOCore

/// The OpenAPI document's part in answering: validation first, then, when
/// no stub takes a valid request, the document's own answer.
extension Dispatcher {
    /// Checks `request` against the document; a refusal (4xx with problem
    /// details) when it breaks it. Findings are logged and, in strict
    /// mode, recorded as failures.
    func checkAgainstSpec(_ request: RecordedRequest, keepAlive: Bool) -> (SpecRequestCheck?, Answer?) {
        guard let spec = core.spec else { return (nil, nil) }
        let check = SpecRequestValidator(spec: spec).check(request)
        report(check.findings, of: request)
        guard let status = check.refusalStatus else { return (check, nil) }
        let refusal = ProblemDetails.refusal(check, status: status, spec: spec)
        var fields = JournalFields(status: status)
        fields.note(check)
        fields.builtinRoute = "openapi"
        fields.response = RecordedResponse(planned: refusal)
        return (check, Answer(plan: .make(refusal, delayMs: 0, keepAlive: keepAlive), journal: fields))
    }

    /// The document's answer to a valid request no stub took; `nil` when
    /// the request is not to a documented operation.
    func answerFromSpec(_ request: RecordedRequest, _ check: SpecRequestCheck?, keepAlive: Bool) -> Answer? {
        guard let spec = core.spec, let check, let operation = check.operation else { return nil }
        var fields = JournalFields(status: nil)
        fields.note(check)
        let response: StubResponse
        var prepared: ByteBuffer?
        let key = SpecAnswerCache.Key(operation, request)
        if let kept = core.specAnswers.answer(for: key) {
            (response, prepared) = (kept.response, kept.prepared)
        } else {
            switch SpecResponder(spec: spec, seed: core.configuration.openAPISeed).answer(operation, request)
            {
            case .success(let answer):
                (response, prepared) = (answer, core.specAnswers.keep(answer, for: key).prepared)
            case .failure(let finding):
                fields.findings = (fields.findings ?? []) + [finding]
                if core.configuration.strict {
                    core.registry.recordFailure(
                        "\(request.method) \(SecretMask.standard.target(request.uri)): \(finding.message)")
                }
                var refused = check
                refused.findings = [finding]
                response = ProblemDetails.refusal(refused, status: 500, spec: spec)
            }
        }
        // The kept bytes serve a kept-alive connection, as a stub's do.
        let plan =
            if let prepared, keepAlive {
                ResponsePlan(steps: [.send(prepared)], status: response.status)
            } else {
                ResponsePlan.make(response, delayMs: 0, keepAlive: keepAlive)
            }
        fields.status = plan.status
        fields.builtinRoute = "openapi"
        fields.response = RecordedResponse(planned: response)
        return Answer(plan: plan, journal: fields)
    }
}

extension Dispatcher {
    /// The validating proxy: the client's request and the real API's answer,
    /// both checked against the document; nothing is refused (the answer is
    /// the API's), every finding is journaled and, in strict mode, recorded.
    func checkRecorded(_ request: RecordedRequest, _ response: StubResponse) -> SpecRequestCheck? {
        guard let spec = core.spec else { return nil }
        var check = SpecRequestValidator(spec: spec).check(request)
        if let operation = check.operation {
            check.findings += SpecResponseValidator(spec: spec).check(response, of: operation)
        }
        report(check.findings, of: request)
        return check
    }
}

extension Dispatcher {
    /// Logs what an exchange broke and, in strict mode, records it as a failure.
    private func report(_ findings: [SpecFinding], of request: RecordedRequest) {
        guard !findings.isEmpty else { return }
        let summary = findings.map { "\($0.pointer): \($0.message)" }.joined(separator: "; ")
        core.logger.info(
            "exchange breaks the OpenAPI document",
            metadata: [
                "request": "\(request.method) \(SecretMask.standard.target(request.uri))",
                "findings": "\(summary)",
            ])
        if core.configuration.strict {
            core.registry.recordFailure(
                "\(request.method) \(SecretMask.standard.target(request.uri)) breaks the OpenAPI document: \(summary)"
            )
        }
    }
}

extension JournalFields {
    /// The operation the request called and what it broke.
    mutating func note(_ check: SpecRequestCheck?) {
        guard let check else { return }
        operationID = check.operation?.displayName
        if !check.findings.isEmpty { findings = check.findings }
    }
}
