/// A request the service refuses, with API.md's status and code.
///
/// The message is for a human reading the client's log and never contains message text or
/// tokens; `detail` (internal errors only) goes to the server's log, never to the client.
public struct APIError: Error, Sendable, CustomStringConvertible {
  /// The `code` field of the error body.
  public enum Code: String, Sendable {
    case badRequest = "bad_request"
    case unauthorized
    case notFound = "not_found"
    case conflict
    case tooLarge = "too_large"
    case invalid
    case rateLimited = "rate_limited"
    case `internal`
    case unavailable

    /// The HTTP status of this code.
    public var status: Int {
      switch self {
      case .badRequest: 400
      case .unauthorized: 401
      case .notFound: 404
      case .conflict: 409
      case .tooLarge: 413
      case .invalid: 422
      case .rateLimited: 429
      case .internal: 500
      case .unavailable: 503
      }
    }
  }

  public var code: Code
  public var message: String
  /// Seconds to wait before retrying, sent as `Retry-After` (429 and 503).
  public var retryAfterSeconds: Int?
  /// What went wrong inside, for the server log only.
  var detail: String?

  public init(_ code: Code, _ message: String, retryAfterSeconds: Int? = nil) {
    self.code = code
    self.message = message
    self.retryAfterSeconds = retryAfterSeconds
  }

  public var status: Int { code.status }

  public var description: String { "\(status) \(code.rawValue): \(message)" }

  /// `{ "error": { "code", "message" } }`, plus `Retry-After` when set, and
  /// `WWW-Authenticate: Bearer` on a 401.
  public var response: APIResponse {
    var response = APIResponse.json(
      status,
      .object(["error": .object(["code": .string(code.rawValue), "message": .string(message)])]))
    if let retryAfterSeconds {
      response.headers.append(("Retry-After", String(retryAfterSeconds)))
    }
    if code == .unauthorized {
      response.headers.append(("WWW-Authenticate", "Bearer"))
    }
    return response
  }

  static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }
  static func invalid(_ message: String) -> APIError { APIError(.invalid, message) }
  static func tooLarge(_ message: String) -> APIError { APIError(.tooLarge, message) }

  static let unauthorized = APIError(
    .unauthorized, "Sign in again: the token is missing or not valid.")
  static let unknownRoute = APIError(.notFound, "No such route.")
  static let unknownConversation = APIError(.notFound, "No such conversation.")

  /// A failure inside the server; `detail` is logged, the client is told to retry later.
  static func `internal`(_ detail: String) -> APIError {
    var error = APIError(.internal, "Something went wrong on the server; try again later.")
    error.detail = detail
    return error
  }

  /// The store could not commit; nothing of the request was kept.
  static func unavailable(_ detail: String) -> APIError {
    var error = APIError(
      .unavailable, "The server could not save this; try again.", retryAfterSeconds: 1)
    error.detail = detail
    return error
  }
}
