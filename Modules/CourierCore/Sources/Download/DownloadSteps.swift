import HTTPTypes

/// A download's staging file (``AttemptSlot/downloadStaging``): the
/// transport writes there, and the file is moved to the destination only
/// once the response passed validation; whatever happens in between, the
/// staging file goes, and a failed response's body comes into the error
/// (``DownloadStaging``).
struct DownloadStagingStep: AttemptStep {
    let destination: DownloadTarget

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        let staging: DownloadStaging
        do {
            staging = try DownloadStaging(destination)
        } catch {
            throw ErrorMapping.transport(error, request: attempt.request.head, attempt: attempt.number)
        }
        defer { staging.discard() }
        attempt.options.destination = staging.staged
        var response: RawResponse
        do throws(CourierError) {
            response = try await next(&attempt, state)
        } catch var failure {
            if let body = staging.failedBody(of: failure.response) { failure.response?.body = body }
            throw failure
        }
        do {
            try staging.commit(&response)
        } catch {
            throw ErrorMapping.transport(error, request: attempt.request.head, attempt: attempt.number)
        }
        return response
    }
}

/// A resumable download continues the bytes earlier attempts kept
/// (``AttemptSlot/downloadResume``): it asks for the rest, joins a 206 to
/// them, keeps what a failed transfer received, and asks once more for the
/// whole file when the kept bytes do not fit the answer (``DownloadResume``).
struct DownloadResumeStep: AttemptStep {
    let destination: DownloadTarget

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        // The staging step, outside, chose where the transport writes.
        guard let staged = attempt.options.destination else { return try await next(&attempt, state) }
        let resume = DownloadResume(destination, request: attempt.request.head)
        let whole = attempt
        resume.ask(&attempt.request.head)
        attempt.options.maxDownloadSize = attempt.options.maxDownloadSize.map {
            max(0, $0 - resume.resumedBytes)
        }
        let response: RawResponse
        do throws(CourierError) {
            response = try await next(&attempt, state)
        } catch {
            Self.keepOrDiscard(error, resume, staged)
            throw error
        }
        guard resume.settle(response, staged: staged) == .restart else { return response }
        DownloadStaging(destination: destination, staged: staged).discard()
        attempt = whole
        do throws(CourierError) {
            return try await next(&attempt, state)
        } catch {
            Self.keepOrDiscard(error, resume, staged)
            throw error
        }
    }

    /// Keeps what a failed transfer received for the next attempt — unless
    /// it was stopped for its size, when nothing is kept to resume from.
    private static func keepOrDiscard(
        _ error: CourierError, _ resume: DownloadResume, _ staged: DownloadTarget
    ) {
        if (error.underlying as? TransportError)?.code == .bodyTooLarge {
            resume.abandon(staged)
        } else {
            resume.keep(from: staged)
        }
    }
}
