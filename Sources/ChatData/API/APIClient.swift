import ChatDomain
import Foundation

/// The endpoints of API.md, with the bearer token on every request.
///
/// A 401 refreshes the token once and retries the request once; a second 401 is `signedOut`.
/// Replies are decoded into DTOs here and go no further than the source repositories.
struct APIClient: Sendable {
  let transport: any HTTPTransport
  let session: SessionManager

  // MARK: - Messages

  /// One page of messages: the newest (`before` and `after` nil), older than `before`, or
  /// newer than `after`. Items are in ascending sequence order.
  func messages(
    in conversation: ConversationID, before: Int? = nil, after: Int? = nil, limit: Int
  ) async throws(APIError) -> MessagePageDTO {
    var query = [(name: "limit", value: String(limit))]
    if let before { query.append((name: "before", value: String(before))) }
    if let after { query.append((name: "after", value: String(after))) }
    return try await decode(
      MessagePageDTO.self,
      HTTPRequest(method: "GET", path: "/v1/conversations/\(conversation)/messages", query: query))
  }

  /// Posts a message; the same client message ID again answers with the stored one.
  func postMessage(_ body: PostMessageDTO, in conversation: ConversationID) async throws(APIError)
    -> MessageDTO
  {
    try await decode(
      MessageDTO.self,
      try Self.jsonRequest("POST", "/v1/conversations/\(conversation)/messages", body))
  }

  // MARK: - Receipts

  func receipts(in conversation: ConversationID) async throws(APIError) -> ReceiptsDTO {
    try await decode(
      ReceiptsDTO.self,
      HTTPRequest(method: "GET", path: "/v1/conversations/\(conversation)/receipts"))
  }

  func postRead(upTo sequence: Int, in conversation: ConversationID) async throws(APIError) {
    _ = try await send(
      try Self.jsonRequest(
        "POST", "/v1/conversations/\(conversation)/read", UpToDTO(upToSequence: sequence)))
  }

  func postDelivered(upTo sequence: Int, in conversation: ConversationID) async throws(APIError) {
    _ = try await send(
      try Self.jsonRequest(
        "POST", "/v1/conversations/\(conversation)/delivered", UpToDTO(upToSequence: sequence)))
  }

  // MARK: - Conversations

  func sync(cursor: String?) async throws(APIError) -> SyncDTO {
    try await decode(
      SyncDTO.self,
      HTTPRequest(
        method: "GET", path: "/v1/sync", query: cursor.map { [(name: "cursor", value: $0)] } ?? []))
  }

  func createConversation(_ body: CreateConversationDTO) async throws(APIError) -> ConversationDTO {
    try await decode(
      ConversationDTO.self, try Self.jsonRequest("POST", "/v1/conversations", body))
  }

  // MARK: - Sign-in (no token)

  /// `POST /v1/auth/dev-login`: a server in dev mode signs anyone in.
  static func devLogin(user: UserID, device: DeviceID, transport: any HTTPTransport)
    async throws(APIError) -> TokensDTO
  {
    let request = try jsonRequest(
      "POST", "/v1/auth/dev-login", DevLoginDTO(userId: user.rawValue, deviceId: device.rawValue))
    let response: HTTPResponse
    do {
      response = try await transport.send(request)
    } catch {
      throw map(error)
    }
    guard response.status == 200 else { throw classify(response) }
    guard let tokens = try? JSONDecoder().decode(TokensDTO.self, from: response.body) else {
      throw .malformedReply("dev-login")
    }
    return tokens
  }

  // MARK: - Plumbing

  private func decode<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) async throws(APIError)
    -> T
  {
    let response = try await send(request)
    do {
      return try JSONDecoder().decode(T.self, from: response.body)
    } catch {
      throw .malformedReply("\(request.method) \(request.path): \(error)")
    }
  }

  /// Sends with the current token; on 401 refreshes once and sends again.
  private func send(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
    let token = try await session.accessToken()
    let response = try await attempt(request, token: token)
    guard response.status == 401 else { return try Self.check(response) }
    let fresh = try await session.refresh(after: token)
    let retried = try await attempt(request, token: fresh)
    guard retried.status == 401 else { return try Self.check(retried) }
    await session.signOut()
    throw .signedOut
  }

  private func attempt(_ request: HTTPRequest, token: String) async throws(APIError)
    -> HTTPResponse
  {
    var request = request
    request.headers["Authorization"] = "Bearer \(token)"
    do {
      return try await transport.send(request)
    } catch {
      throw Self.map(error)
    }
  }

  private static func check(_ response: HTTPResponse) throws(APIError) -> HTTPResponse {
    guard (200..<300).contains(response.status) else { throw classify(response) }
    return response
  }

  static func map(_ error: TransportError) -> APIError {
    switch error {
    case .offline(let reason): .offline(reason)
    case .timeout: .timeout
    }
  }

  /// The longest `Retry-After` obeyed: a wrong header must not stop the outbox for a year.
  static let maximumRetryAfter = 3_600

  /// Maps a non-2xx response: 5xx, 408 and 429 are temporary; other 4xx are rejections.
  static func classify(_ response: HTTPResponse) -> APIError {
    let retryAfter = response.headers["retry-after"].flatMap { Int($0) }.map {
      Duration.seconds(min(max(0, $0), maximumRetryAfter))
    }
    switch response.status {
    case 429, 408, 500...599:
      return .unavailable(status: response.status, retryAfter: retryAfter)
    case 401:
      return .signedOut
    default:
      let body = try? JSONDecoder().decode(ErrorDTO.self, from: response.body)
      return .rejected(
        status: response.status, code: body?.error.code ?? "http_\(response.status)",
        message: body?.error.message ?? "HTTP \(response.status)")
    }
  }

  static func jsonRequest<Body: Encodable>(_ method: String, _ path: String, _ body: Body)
    throws(APIError) -> HTTPRequest
  {
    let data: Data
    do {
      data = try JSONEncoder().encode(body)
    } catch {
      throw .rejected(status: 0, code: "encoding", message: "\(error)")
    }
    return HTTPRequest(
      method: method, path: path, headers: ["Content-Type": "application/json; charset=utf-8"],
      body: data)
  }
}
