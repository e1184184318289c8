/// Every route of API.md, Parts 1 and 2: how the client builds a request's method and path, and
/// how the server recognises one.
///
/// Ids are carried as written in the path, unchecked: the server validates them itself, after
/// the checks API.md puts first (a malformed id is a 400 only after 401, 429 and 413).
public enum Endpoint: Hashable, Sendable {
  // Operations (no token).
  case healthz
  case metrics
  // Auth (no token).
  case devLogin
  case refresh
  // Conversations.
  case createConversation
  case listConversations
  case sync
  /// `PATCH /v1/conversations/{id}`: a title change.
  case changeTitle(conversation: String)
  case changeMembers(conversation: String)
  case mute(conversation: String)
  /// `PUT /v1/conversations/{id}/draft` (Part 3).
  case draft(conversation: String)
  // Items.
  case listItems(conversation: String)
  case postItem(conversation: String)
  // Receipts.
  case receipts(conversation: String)
  case delivered(conversation: String)
  case read(conversation: String)
  // Live.
  case live
  // Media.
  case createUpload
  case upload(key: String)
  case completeUpload(key: String)
  case media(key: String)
  // Push.
  case registerPush
  case removePush
  // Search.
  case search
  // Blocking (Part 3).
  case blockedUsers
  case block(user: String)
  case unblock(user: String)

  public var method: String {
    switch self {
    case .healthz, .metrics, .listConversations, .sync, .listItems, .receipts, .live, .upload,
      .media, .search, .blockedUsers:
      "GET"
    case .devLogin, .refresh, .createConversation, .changeMembers, .postItem, .delivered, .read,
      .createUpload, .completeUpload:
      "POST"
    case .changeTitle: "PATCH"
    case .mute, .draft, .registerPush, .block: "PUT"
    case .removePush, .unblock: "DELETE"
    }
  }

  public var path: String {
    switch self {
    case .healthz: "/healthz"
    case .metrics: "/metrics"
    case .devLogin: "/v1/auth/dev-login"
    case .refresh: "/v1/auth/refresh"
    case .createConversation, .listConversations: "/v1/conversations"
    case .sync: "/v1/sync"
    case .changeTitle(let id): "/v1/conversations/\(id)"
    case .changeMembers(let id): "/v1/conversations/\(id)/members"
    case .mute(let id): "/v1/conversations/\(id)/mute"
    case .draft(let id): "/v1/conversations/\(id)/draft"
    case .listItems(let id), .postItem(let id): "/v1/conversations/\(id)/messages"
    case .receipts(let id): "/v1/conversations/\(id)/receipts"
    case .delivered(let id): "/v1/conversations/\(id)/delivered"
    case .read(let id): "/v1/conversations/\(id)/read"
    case .live: "/v1/live"
    case .createUpload: "/v1/media/uploads"
    case .upload(let key): "/v1/media/uploads/\(key)"
    case .completeUpload(let key): "/v1/media/uploads/\(key)/complete"
    case .media(let key): "/v1/media/\(key)"
    case .registerPush, .removePush: "/v1/devices/me/push"
    case .search: "/v1/search"
    case .blockedUsers: "/v1/users/me/blocked"
    case .block(let user), .unblock(let user): "/v1/users/me/blocked/\(user)"
    }
  }

  /// The path with ids replaced by `{id}` / `{key}`: what logs and metrics show.
  public var pattern: String {
    switch self {
    case .changeTitle: "/v1/conversations/{id}"
    case .changeMembers: "/v1/conversations/{id}/members"
    case .mute: "/v1/conversations/{id}/mute"
    case .draft: "/v1/conversations/{id}/draft"
    case .listItems, .postItem: "/v1/conversations/{id}/messages"
    case .receipts: "/v1/conversations/{id}/receipts"
    case .delivered: "/v1/conversations/{id}/delivered"
    case .read: "/v1/conversations/{id}/read"
    case .upload: "/v1/media/uploads/{key}"
    case .completeUpload: "/v1/media/uploads/{key}/complete"
    case .media: "/v1/media/{key}"
    case .block, .unblock: "/v1/users/me/blocked/{userId}"
    default: path
    }
  }

  /// Whether the route needs `Authorization: Bearer` (all but operations and sign-in).
  public var needsToken: Bool {
    switch self {
    case .healthz, .metrics, .devLogin, .refresh: false
    default: true
    }
  }

  /// The route of a request, or nil for a path and method API.md does not define.
  public init?(method: String, path: String) {
    // Split the UTF-8 view: `String.split` would walk grapheme clusters, on every request.
    let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
      .map { String(Substring($0)) }
    guard segments.count >= 2, segments[0] == "" else { return nil }
    let rest = Array(segments.dropFirst())
    guard let endpoint = Self.match(method, rest) else { return nil }
    self = endpoint
  }

  private static func match(_ method: String, _ segments: [String]) -> Endpoint? {
    switch (method, segments) {
    case ("GET", ["healthz"]): return .healthz
    case ("GET", ["metrics"]): return .metrics
    case ("POST", ["v1", "auth", "dev-login"]): return .devLogin
    case ("POST", ["v1", "auth", "refresh"]): return .refresh
    case ("POST", ["v1", "conversations"]): return .createConversation
    case ("GET", ["v1", "conversations"]): return .listConversations
    case ("GET", ["v1", "sync"]): return .sync
    case ("GET", ["v1", "live"]): return .live
    case ("POST", ["v1", "media", "uploads"]): return .createUpload
    case ("PUT", ["v1", "devices", "me", "push"]): return .registerPush
    case ("DELETE", ["v1", "devices", "me", "push"]): return .removePush
    case ("GET", ["v1", "search"]): return .search
    case ("GET", ["v1", "users", "me", "blocked"]): return .blockedUsers
    default: break
    }
    if segments.count == 5, segments[0...3] == ["v1", "users", "me", "blocked"] {
      switch method {
      case "PUT": return .block(user: segments[4])
      case "DELETE": return .unblock(user: segments[4])
      default: return nil
      }
    }
    switch segments.count {
    case 3 where segments[0] == "v1" && segments[1] == "conversations":
      return method == "PATCH" ? .changeTitle(conversation: segments[2]) : nil
    case 4 where segments[0] == "v1" && segments[1] == "conversations":
      let id = segments[2]
      switch (method, segments[3]) {
      case ("GET", "messages"): return .listItems(conversation: id)
      case ("POST", "messages"): return .postItem(conversation: id)
      case ("GET", "receipts"): return .receipts(conversation: id)
      case ("POST", "delivered"): return .delivered(conversation: id)
      case ("POST", "read"): return .read(conversation: id)
      case ("POST", "members"): return .changeMembers(conversation: id)
      case ("PUT", "mute"): return .mute(conversation: id)
      case ("PUT", "draft"): return .draft(conversation: id)
      default: return nil
      }
    case 3 where segments[0] == "v1" && segments[1] == "media" && method == "GET":
      return segments[2] == "uploads" ? nil : .media(key: segments[2])
    case 4 where segments[0] == "v1" && segments[1] == "media" && segments[2] == "uploads":
      return method == "GET" ? .upload(key: segments[3]) : nil
    case 5
    where segments[0] == "v1" && segments[1] == "media" && segments[2] == "uploads"
      && segments[4] == "complete":
      return method == "POST" ? .completeUpload(key: segments[3]) : nil
    default:
      return nil
    }
  }
}
