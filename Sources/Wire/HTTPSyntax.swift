/// The syntax of RFC 9110 and 9112 that ``HTTPDecoder`` reads in both directions (byte
/// classes, lines, fields, chunk sizes, `Content-Length`); no I/O, so the fuzzers build with it.

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

@inline(__always)
func hexValue(_ byte: UInt8) -> Int? {
  switch byte {
  case 0x30...0x39: Int(byte - 0x30)
  case 0x41...0x46: Int(byte - 0x41 + 10)
  case 0x61...0x66: Int(byte - 0x61 + 10)
  default: nil
  }
}

/// `tchar` of RFC 9110 section 5.6.2.
@inline(__always)
func isTokenByte(_ byte: UInt8) -> Bool {
  switch byte {
  case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
  case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E:
    true
  default: false
  }
}

/// A byte allowed in a field value: SP, HTAB, VCHAR and obs-text; never CR, LF, NUL or DEL.
@inline(__always)
func isFieldValueByte(_ byte: UInt8) -> Bool {
  byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
}

// MARK: - The syntax both directions read

/// A problem found by the syntax requests and responses share (``HTTPDecoder`` says it as a
/// malformed message, or as a message too large when `isOverLimit`).
struct HTTPSyntaxError: Error, Hashable {
  let message: String
  var isOverLimit = false
}

/// What looking for the next line found.
enum HTTPLineScan: Hashable {
  case line(Range<Int>)
  case needMore
  /// The line is longer than the limit (or would be, once its CRLF arrives).
  case tooLong
  /// A LF without CR before it: a line end for some parsers and not for others, so refused.
  case bareLF
}

extension ByteBuffer {
  /// Reads the next CRLF-terminated line and returns where it lies (storage positions, without
  /// the CRLF), or says why there is none. `scanned` keeps how many bytes after the reader
  /// index were already searched for a line end, so bytes arriving one at a time are each
  /// looked at once; it is 0 again after a line.
  mutating func readHTTPLine(limit: Int, scanned: inout Int) -> HTTPLineScan {
    let start = readerIndex
    guard let end = firstIndex(of: 0x0A, from: start + scanned) else {
      scanned = readableBytes
      // The limit plus room for the CRLF that may still come.
      return readableBytes > limit + 1 ? .tooLong : .needMore
    }
    // The same test as above, so the answer does not depend on how the bytes arrived.
    if end - start > limit + 1 { return .tooLong }
    guard end > start, self[end - 1] == 0x0D else { return .bareLF }
    moveReaderIndex(forwardBy: end + 1 - start)
    scanned = 0
    return .line(start..<(end - 1))
  }
}

/// `name: value` of a header or trailer line (RFC 9112 section 5): the name a token, the
/// value without its surrounding whitespace and free of control characters, no obsolete
/// folding.
func parseFieldLine(_ line: ArraySlice<UInt8>) -> Result<
  (name: ArraySlice<UInt8>, value: ArraySlice<UInt8>), HTTPSyntaxError
> {
  guard let first = line.first, first != 0x20, first != 0x09 else {
    return .failure(HTTPSyntaxError(message: "Obsolete line folding is not accepted."))
  }
  guard let colon = line.firstIndex(of: 0x3A) else {
    return .failure(HTTPSyntaxError(message: "A header line has no colon."))
  }
  let name = line[line.startIndex..<colon]
  guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
    return .failure(HTTPSyntaxError(message: "A header name is empty or not a token."))
  }
  var valueStart = colon + 1
  var valueEnd = line.endIndex
  while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 {
    valueStart += 1
  }
  while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 {
    valueEnd -= 1
  }
  let value = line[valueStart..<valueEnd]
  guard value.allSatisfy(isFieldValueByte) else {
    return .failure(HTTPSyntaxError(message: "A header value has a control character."))
  }
  return .success((name, value))
}

/// A checked field line as the strings `HTTPHeaders` keeps.
func fieldStrings(_ field: (name: ArraySlice<UInt8>, value: ArraySlice<UInt8>))
  -> HTTPHeaders.Field
{
  (
    name: String(decoding: field.name, as: UTF8.self),
    value: String(decoding: field.value, as: UTF8.self)
  )
}

/// The size of a chunk-size line (RFC 9112 section 7.1): hexadecimal, at most 15 digits, then
/// only whitespace and `;`-led extensions, which are ignored.
func parseChunkSizeLine(_ line: ArraySlice<UInt8>) -> Result<Int, HTTPSyntaxError> {
  var index = line.startIndex
  var size = 0
  var digits = 0
  while index < line.endIndex, let digit = hexValue(line[index]) {
    digits += 1
    if digits > 15 {
      return .failure(HTTPSyntaxError(message: "The chunk size is too large.", isOverLimit: true))
    }
    size = size << 4 | digit
    index += 1
  }
  if digits == 0 {
    return .failure(HTTPSyntaxError(message: "The chunk size is not hexadecimal."))
  }
  var sawSemicolon = false
  while index < line.endIndex {
    let byte = line[index]
    if byte == 0x3B {
      sawSemicolon = true
    } else if !sawSemicolon && byte != 0x20 && byte != 0x09 {
      return .failure(HTTPSyntaxError(message: "The chunk size line has unexpected bytes."))
    } else if !isFieldValueByte(byte) {
      return .failure(HTTPSyntaxError(message: "A chunk extension has a control character."))
    }
    index += 1
  }
  return .success(size)
}

/// The one `Content-Length` of a message's `Content-Length` fields: exactly one, all digits.
func parseContentLength(_ fields: [String]) -> Result<Int, HTTPSyntaxError> {
  guard fields.count == 1 else {
    return .failure(HTTPSyntaxError(message: "More than one Content-Length field."))
  }
  let text = fields[0]
  guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy(isDigit),
    let length = Int(text)
  else {
    return .failure(HTTPSyntaxError(message: "Content-Length is not a number."))
  }
  return .success(length)
}
