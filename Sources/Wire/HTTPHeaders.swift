/// The header fields of a request or a response, in the order they were received or added.
///
/// Names compare without regard to ASCII case (`content-length` finds `Content-Length`), as
/// RFC 9110 section 5.1 requires. Values are kept as received, without the surrounding
/// whitespace.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
  /// One header field.
  public typealias Field = (name: String, value: String)

  /// The fields in order; a name may occur more than once.
  public private(set) var fields: [Field]

  /// Headers with the given fields, in order.
  public init(_ fields: [Field] = []) {
    self.fields = fields
  }

  public init(dictionaryLiteral elements: (String, String)...) {
    self.fields = elements.map { (name: $0.0, value: $0.1) }
  }

  /// The first value of the field `name`, or nil when there is none.
  public subscript(name: String) -> String? {
    for field in fields where field.name.equalsIgnoringASCIICase(name) {
      return field.value
    }
    return nil
  }

  /// Every value of the field `name`, in order.
  public func values(for name: String) -> [String] {
    fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
  }

  /// Whether a field named `name` is present.
  public func contains(_ name: String) -> Bool {
    fields.contains { $0.name.equalsIgnoringASCIICase(name) }
  }

  /// Whether the comma-separated list in the fields named `name` holds `token` (ASCII case
  /// ignored), as in `Connection: keep-alive, Upgrade`.
  public func containsToken(_ token: String, in name: String) -> Bool {
    for value in values(for: name) {
      for element in value.split(separator: ",") {
        if element.trimmingSpacesAndTabs().equalsIgnoringASCIICase(token) { return true }
      }
    }
    return false
  }

  /// Appends a field, keeping any field of the same name.
  public mutating func add(name: String, value: String) {
    fields.append((name: name, value: value))
  }

  /// Replaces every field named `name` by one field with `value`.
  public mutating func replaceOrAdd(name: String, value: String) {
    remove(name: name)
    fields.append((name: name, value: value))
  }

  /// Removes every field named `name`.
  public mutating func remove(name: String) {
    fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
  }

  public var count: Int { fields.count }

  public func makeIterator() -> IndexingIterator<[Field]> {
    fields.makeIterator()
  }
}

extension StringProtocol {
  /// Compares two strings byte by byte, folding ASCII letters only.
  func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
    let lhs = utf8
    let rhs = other.utf8
    guard lhs.count == rhs.count else { return false }
    for (a, b) in zip(lhs, rhs) where a != b {
      if asciiLowercased(a) != asciiLowercased(b) { return false }
    }
    return true
  }

  /// The string without leading and trailing spaces and horizontal tabs (HTTP's OWS).
  func trimmingSpacesAndTabs() -> Substring {
    var text = Substring(self)
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return text
  }
}

@inline(__always)
func asciiLowercased(_ byte: UInt8) -> UInt8 {
  byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}
