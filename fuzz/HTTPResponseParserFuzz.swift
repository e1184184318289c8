// libFuzzer target for HTTPResponseParser (built by scripts/wire-fuzz with the parser's own
// source files; no I/O). The first byte picks how the rest is cut into pieces, small limits
// and whether the request was a HEAD. The events of the whole input and of the pieces (with
// the server's FIN after the last byte) must be the same, nothing may crash, and a response
// that completes at byte N must not complete when the connection ends before byte N: a cut
// response is never taken for a whole one.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponseParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let pieceSize = Int(input[0] % 16) + 1
  let method: HTTPMethod = input[0] & 0x40 != 0 ? .head : .get
  let bytes = Array(input.dropFirst())
  var limits = HTTPResponseParser.Limits()
  // Small limits make every limit reachable by short inputs.
  if input[0] & 0x80 != 0 {
    limits.statusLine = 64
    limits.headerLine = 64
    limits.headerSection = 256
    limits.headerCount = 8
    limits.body = 128
    limits.chunkLine = 32
    limits.informationalResponses = 2
  }
  let whole = parse(bytes, method: method, limits: limits, pieceSize: max(1, bytes.count))
  let pieces = parse(bytes, method: method, limits: limits, pieceSize: pieceSize)
  if whole.summary != pieces.summary {
    fatalError("Split input parsed differently:\n\(whole.summary)\n\(pieces.summary)")
  }
  if whole.framed, let consumed = whole.consumed, consumed > 0 {
    let cut = parse(
      Array(bytes[..<(consumed - 1)]), method: method, limits: limits, pieceSize: pieceSize)
    if cut.summary.hasPrefix("response") {
      fatalError("A response cut one byte short was complete:\n\(cut.summary)")
    }
  }
  return 0
}

private struct Parsed {
  var summary: String
  /// The response ended by its own framing, before the FIN.
  var framed = false
  /// Bytes the response took (the rest came after it).
  var consumed: Int?
}

private func parse(
  _ bytes: [UInt8], method: HTTPMethod, limits: HTTPResponseParser.Limits, pieceSize: Int
) -> Parsed {
  var parser = HTTPResponseParser(requestMethod: method, limits: limits)
  var index = 0
  repeat {
    let end = min(bytes.count, index + pieceSize)
    parser.append(contentsOf: bytes[index..<end])
    index = end
    if let event = parser.next() {
      var parsed = Parsed(summary: summarize(event, limits: limits))
      if case .response = event {
        // Feed the rest, so the count of bytes after the response is the same either way.
        parser.append(contentsOf: bytes[index...])
        parsed.framed = true
        parsed.consumed = bytes.count - parser.bytesAfterResponse
      }
      return parsed
    }
  } while index < bytes.count
  return Parsed(summary: parser.finish().map { summarize($0, limits: limits) } ?? "none")
}

private func summarize(_ event: HTTPResponseParser.Event, limits: HTTPResponseParser.Limits)
  -> String
{
  switch event {
  case .response(let head, let body):
    if case .length(let length) = head.framing, length != body.count {
      fatalError("Body length \(body.count) differs from Content-Length \(length)")
    }
    if body.count > limits.body { fatalError("Body over the limit was accepted") }
    if head.framing == .untilClose && head.keepAlive {
      fatalError("A body framed by the close kept the connection")
    }
    return "response \(head.status.code) \(head.headers.count) \(head.framing) \(body)"
  case .failure(let error):
    return "failure \(error.kind)"
  }
}
