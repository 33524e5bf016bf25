#if AsyncHTTPClient
    import AsyncHTTPClient
    @_spi(Transport) public import CourierCore
    import CourierProxies
    import HTTPTypes
    import NIOCore

    @_spi(Transport) extension AsyncHTTPClientTransport: StreamingTransport, PausableTransport {
        /// Sends the request and returns once its head is in; the body
        /// arrives through the response's stream. async-http-client reads
        /// from the socket only as its body sequence is pulled, and the body
        /// is pulled into a bounded buffer, so a reader a megabyte behind
        /// holds the connection back. `options`' `timeout` bounds the whole
        /// exchange (the client passes none and bounds the head itself). See
        /// ``/CourierCore/StreamingTransport``.
        @_spi(Transport) public func stream(_ request: OutgoingRequest, options: TransportOptions)
            async throws
            -> StreamingResponse
        {
            try options.checkCancellation()
            var streaming = options
            streaming.maxBodySize = .max
            let opening = streaming
            let proxy = try proxy(for: request)
            let client = clients.client(through: proxy)
            let work = Task {
                // Admitted like any exchange, and the slot held until the
                // body ends: a stream occupies its connection that long.
                guard let origin = self.admissionOrigin(request.head) else {
                    return try await AHCExchange(request: request, options: opening).stream(on: client) {
                    }
                }
                let slot = try await self.admission.admit(origin, options: opening)
                do {
                    return try await AHCExchange(request: request, options: opening).stream(on: client) {
                        slot.release()
                    }
                } catch {
                    slot.release()
                    throw error
                }
            }
            guard let proxy else {
                return try await opening.withCancellationHandler(
                    { try await work.value }, onCancel: { work.cancel() })
            }
            do {
                let response = try await opening.withCancellationHandler(
                    { try await work.value }, onCancel: { work.cancel() })
                try Self.proxyRefusal(status: response.head.status.code, through: proxy)
                return response
            } catch let error as TransportError {
                throw Self.proxyError(error, through: proxy, beforeHead: true)
            }
        }
    }

    extension AHCExchange {
        /// Sends the request and returns at its head; a task of its own pulls
        /// the body into the stream's buffer, waiting while it is full, and
        /// calls `ended` once the body is over (read, failed or abandoned).
        /// When this throws, `ended` is not called.
        func stream(on client: HTTPClient, ended: @escaping @Sendable () -> Void) async throws
            -> StreamingResponse
        {
            let (outgoing, _) = try await prepared()
            let response: HTTPClientResponse
            do {
                response = try await client.execute(outgoing, deadline: .distantFuture)
            } catch {
                throw AHCErrorMapping.map(error, cancelled: Task.isCancelled, beforeHead: true)
            }
            let head = try checkedHead(response)
            let buffer = BodyStreamBuffer()
            let body = response.body
            let progress = options.progress
            let total = TransferProgress.downloadTotal(of: head.headerFields)
            let pump = Task {
                defer { ended() }
                var decoding = AHCBodyDecoding(head)
                do {
                    for try await chunk in body {
                        let decoded = try decoding.decode(chunk, limit: nil, what: "body")
                        try await buffer.write(Array(decoded.readableBytesView))
                        progress?(
                            TransferProgress(direction: .download, completed: decoding.count, total: total))
                    }
                    try decoding.finish()
                    buffer.finish()
                } catch {
                    // (A reader that gave up ended the buffer already.)
                    buffer.finish(throwing: AHCErrorMapping.map(error, cancelled: Task.isCancelled))
                }
            }
            // Cancelling the pump drops the body sequence: async-http-client
            // then cancels the request and closes its connection.
            buffer.setHandlers(onDrain: {}, onCancel: { pump.cancel() })
            return StreamingResponse(head: head, body: ResponseBodyStream(buffer))
        }
    }
#endif
