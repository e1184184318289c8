import ChatAPI

/// A request the service refuses, with API.md's status and code.
///
/// The message is for a human reading the client's log and never contains message text or
/// tokens; `detail` (internal errors only) goes to the server's log, never to the client.
public struct ServiceError: Error, Sendable, CustomStringConvertible {
  public var code: ErrorCode
  public var message: String
  /// Seconds to wait before retrying, sent as `Retry-After` (429 and 503).
  public var retryAfterSeconds: Int?
  /// What went wrong inside, for the server log only.
  var detail: String?

  public init(_ code: ErrorCode, _ message: String, retryAfterSeconds: Int? = nil) {
    self.code = code
    self.message = message
    self.retryAfterSeconds = retryAfterSeconds
  }

  public var status: Int { code.status }

  public var description: String { "\(status) \(code.rawValue): \(message)" }

  /// `{ "error": { "code", "message" } }`, plus `Retry-After` when set, and
  /// `WWW-Authenticate: Bearer` on a 401.
  public var response: APIResponse {
    var response = APIResponse.json(status, ErrorResponse(code, message))
    if let retryAfterSeconds {
      response.headers.add("Retry-After", String(retryAfterSeconds))
    }
    if code == .unauthorized {
      response.headers.add("WWW-Authenticate", "Bearer")
    }
    return response
  }

  static func badRequest(_ message: String) -> ServiceError { ServiceError(.badRequest, message) }
  static func invalid(_ message: String) -> ServiceError { ServiceError(.invalid, message) }
  static func tooLarge(_ message: String) -> ServiceError { ServiceError(.tooLarge, message) }

  static let unauthorized = ServiceError(
    .unauthorized, "Sign in again: the token is missing or not valid.")
  static let unknownRoute = ServiceError(.notFound, "No such route.")
  static let unknownConversation = ServiceError(.notFound, "No such conversation.")
  static let formerMember = ServiceError(
    .forbidden, "You are no longer a member of this conversation: you can read what you saw.")

  /// A failure inside the server; `detail` is logged, the client is told to retry later.
  static func `internal`(_ detail: String) -> ServiceError {
    var error = ServiceError(.internal, "Something went wrong on the server; try again later.")
    error.detail = detail
    return error
  }

  /// The store could not commit; nothing of the request was kept.
  static func unavailable(_ detail: String) -> ServiceError {
    var error = ServiceError(
      .unavailable, "The server could not save this; try again.", retryAfterSeconds: 1)
    error.detail = detail
    return error
  }
}
