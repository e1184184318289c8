/// The `code` of an error body, with its HTTP status (API.md, "Errors").
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
  case badRequest = "bad_request"
  case unauthorized
  case forbidden
  case notFound = "not_found"
  case conflict
  case gone
  case tooLarge = "too_large"
  case invalid
  case rateLimited = "rate_limited"
  case `internal`
  case unavailable

  public var status: Int {
    switch self {
    case .badRequest: 400
    case .unauthorized: 401
    case .forbidden: 403
    case .notFound: 404
    case .conflict: 409
    case .gone: 410
    case .tooLarge: 413
    case .invalid: 422
    case .rateLimited: 429
    case .internal: 500
    case .unavailable: 503
    }
  }
}

/// Every 4xx/5xx body: `{ "error": { "code", "message" } }`.
///
/// `code` stays a string when read, so a code this version does not know is still read.
public struct ErrorResponse: Codable, Sendable, Equatable {
  public struct Body: Codable, Sendable, Equatable {
    public var code: String
    /// For a person; never message text or tokens.
    public var message: String

    public init(code: String, message: String) {
      self.code = code
      self.message = message
    }
  }

  public var error: Body

  public init(code: String, message: String) {
    error = Body(code: code, message: message)
  }

  public init(_ code: ErrorCode, _ message: String) {
    self.init(code: code.rawValue, message: message)
  }
}
