import Foundation

/// The little XML S3 speaks: fixed, flat shapes (`<Part><PartNumber>1</PartNumber>…</Part>`),
/// read by element name and written by hand. Not a general XML parser: no attributes read, no
/// nesting of one name inside itself, entities limited to XML's five and `&#34;`.
enum S3XML {
  /// The contents of every `<name>…</name>` element, in order.
  static func elements(_ name: String, in text: Substring) throws(S3Error) -> [Substring] {
    var found: [Substring] = []
    var rest = text
    while let open = rest.range(of: "<\(name)>") {
      guard let close = rest[open.upperBound...].range(of: "</\(name)>") else {
        throw .malformedXML
      }
      found.append(rest[open.upperBound..<close.lowerBound])
      rest = rest[close.upperBound...]
    }
    return found
  }

  /// The text of the first `<name>` element, unescaped and trimmed; nil when there is none.
  static func text(of name: String, in element: Substring) -> String? {
    guard let open = element.range(of: "<\(name)>"),
      let close = element[open.upperBound...].range(of: "</\(name)>")
    else { return nil }
    return unescape(
      element[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines))
  }

  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
      .replacingOccurrences(of: "'", with: "&apos;")
  }

  static func unescape(_ text: String) -> String {
    text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(
      of: "&apos;", with: "'"
    )
    .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
    .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
  }
}
