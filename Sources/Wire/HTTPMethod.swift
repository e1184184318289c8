/// An HTTP request method, compared by its exact (case-sensitive) name as RFC 9110 requires.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let get = HTTPMethod(rawValue: "GET")
  public static let head = HTTPMethod(rawValue: "HEAD")
  public static let post = HTTPMethod(rawValue: "POST")
  public static let put = HTTPMethod(rawValue: "PUT")
  public static let patch = HTTPMethod(rawValue: "PATCH")
  public static let delete = HTTPMethod(rawValue: "DELETE")
  public static let options = HTTPMethod(rawValue: "OPTIONS")

  /// Whether sending the request twice has the effect of sending it once, by the method alone
  /// (RFC 9110 section 9.2.2): GET, HEAD, OPTIONS, TRACE, PUT and DELETE.
  public var isIdempotent: Bool {
    switch rawValue {
    case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
    default: false
    }
  }

  public var description: String { rawValue }
}
