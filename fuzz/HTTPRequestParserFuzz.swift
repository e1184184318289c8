// libFuzzer target for HTTPRequestParser (built by scripts/wire-fuzz with the parser's own
// source files; no I/O). The first byte picks how the rest is cut into pieces; the events of
// the whole input and of the pieces must be the same, and nothing may crash.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequestParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let pieceSize = Int(input[0] % 16) + 1
  let bytes = Array(input.dropFirst())
  var limits = HTTPRequestParser.Limits()
  // Small limits make every limit reachable by short inputs.
  if input[0] & 0x80 != 0 {
    limits.requestLine = 64
    limits.headerLine = 64
    limits.headerSection = 256
    limits.headerCount = 8
    limits.body = 128
    limits.chunkLine = 32
  }
  let whole = summarize(bytes, limits: limits, pieceSize: max(1, bytes.count))
  let pieces = summarize(bytes, limits: limits, pieceSize: pieceSize)
  if whole != pieces {
    fatalError("Split input parsed differently:\n\(whole)\n\(pieces)")
  }
  return 0
}

private func summarize(_ bytes: [UInt8], limits: HTTPRequestParser.Limits, pieceSize: Int)
  -> [String]
{
  var parser = HTTPRequestParser(limits: limits)
  var events: [String] = []
  var index = 0
  repeat {
    let end = min(bytes.count, index + pieceSize)
    parser.append(contentsOf: bytes[index..<end])
    index = end
    while let event = parser.next() {
      switch event {
      case .head(let head):
        events.append("head \(head.method) \(head.target) \(head.headers.count) \(head.framing)")
      case .request(let head, let body):
        if case .length(let length) = head.framing, length != body.count {
          fatalError("Body length \(body.count) differs from Content-Length \(length)")
        }
        if body.count > limits.body { fatalError("Body over the limit was accepted") }
        events.append("request \(head.target) \(body)")
      case .failure(let error):
        events.append("failure \(error.status.code)")
        return events
      }
    }
  } while index < bytes.count
  return events
}
