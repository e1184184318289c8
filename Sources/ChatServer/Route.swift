/// Which route of API.md a request is for. Routes that need no token are matched by path
/// alone; every other request, an unknown one included, needs a valid bearer token before
/// anything else is said about it (401 comes first in API.md's precedence).
enum Route: Equatable, Sendable {
  case healthz
  case metrics
  /// Dev mode only; a 404 otherwise.
  case devLogin
  case refresh
  case authenticated(AuthenticatedRoute)

  init(method: String, path: String) {
    switch (method, path) {
    case ("GET", "/healthz"): self = .healthz
    case ("GET", "/metrics"): self = .metrics
    case ("POST", "/v1/auth/dev-login"): self = .devLogin
    case ("POST", "/v1/auth/refresh"): self = .refresh
    default: self = .authenticated(AuthenticatedRoute(method: method, path: path))
    }
  }

  /// The path pattern, for logs and metrics: ids never appear there.
  var pattern: String {
    switch self {
    case .healthz: "/healthz"
    case .metrics: "/metrics"
    case .devLogin: "/v1/auth/dev-login"
    case .refresh: "/v1/auth/refresh"
    case .authenticated(let route): route.pattern
    }
  }
}

/// A route that needs `Authorization: Bearer`. Conversation ids are as written in the path,
/// not yet checked (a malformed one is a 400, after the 401, 429 and 413 checks).
enum AuthenticatedRoute: Equatable, Sendable {
  case createConversation
  case listConversations
  case sync
  case listMessages(conversation: String)
  case sendMessage(conversation: String)
  case receipts(conversation: String)
  case delivered(conversation: String)
  case read(conversation: String)
  case live
  case unknown

  init(method: String, path: String) {
    // Split the UTF-8 view: `String.split` would walk grapheme clusters, on every request.
    let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
      .map { Substring($0) }
    if segments.count == 5, segments[0] == "", segments[1] == "v1", segments[2] == "conversations" {
      let id = String(segments[3])
      switch (method, segments[4]) {
      case ("GET", "messages"): self = .listMessages(conversation: id)
      case ("POST", "messages"): self = .sendMessage(conversation: id)
      case ("GET", "receipts"): self = .receipts(conversation: id)
      case ("POST", "delivered"): self = .delivered(conversation: id)
      case ("POST", "read"): self = .read(conversation: id)
      default: self = .unknown
      }
      return
    }
    switch (method, path) {
    case ("POST", "/v1/conversations"): self = .createConversation
    case ("GET", "/v1/conversations"): self = .listConversations
    case ("GET", "/v1/sync"): self = .sync
    case ("GET", "/v1/live"): self = .live
    default: self = .unknown
    }
  }

  var pattern: String {
    switch self {
    case .createConversation, .listConversations: "/v1/conversations"
    case .sync: "/v1/sync"
    case .listMessages, .sendMessage: "/v1/conversations/{id}/messages"
    case .receipts: "/v1/conversations/{id}/receipts"
    case .delivered: "/v1/conversations/{id}/delivered"
    case .read: "/v1/conversations/{id}/read"
    case .live: "/v1/live"
    case .unknown: "unmatched"
    }
  }
}
