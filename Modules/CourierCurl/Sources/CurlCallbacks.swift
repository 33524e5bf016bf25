import CCurl

// C callbacks: non-capturing, so they convert to C function pointers; the
// transfer comes back through the user-data pointer.

func curlWrite(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
}

func curlHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context, let data else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    return transfer.header(bytes) ? size * count : 0
}

func curlSeek(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let context, origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.rewind(to: Int64(offset)) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_CANTSEEK)
}

func curlPrerequest(
    _ context: UnsafeMutableRawPointer?, _ remoteIP: UnsafeMutablePointer<CChar>?,
    _ localIP: UnsafeMutablePointer<CChar>?, _ remotePort: Int32, _ localPort: Int32
) -> Int32 {
    guard let context else { return Int32(CURL_PREREQFUNC_OK) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.prerequest() ? Int32(CURL_PREREQFUNC_OK) : Int32(CURL_PREREQFUNC_ABORT)
}

func curlRead(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context, let data else { return Int(CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.read(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}
