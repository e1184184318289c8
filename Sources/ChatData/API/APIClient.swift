import ChatAPI
import ChatDomain
import ChatIdentifiers
import Support

/// The endpoints of API.md, with the bearer token on every request.
///
/// A 401 refreshes the token once and retries the request once; a second 401 is `signedOut`.
/// Replies are decoded into `ChatAPI` shapes here and go no further than the source
/// repositories.
struct APIClient: Sendable {
  let transport: any HTTPTransport
  let session: SessionManager
  let retryPolicy: RetryPolicy

  // MARK: - Messages

  /// One page of messages: the newest (`before`, `after` and `around` nil), older than
  /// `before`, newer than `after`, or centred on `around` (API.md Part 3). Items are in
  /// ascending sequence order.
  func messages(
    in conversation: ConversationID, before: Int? = nil, after: Int? = nil, around: Int? = nil,
    limit: Int
  ) async throws(RequestFailure) -> ItemPage {
    var query: QueryItems = ["limit": String(limit)]
    if let before { query.append("before", String(before)) }
    if let after { query.append("after", String(after)) }
    if let around { query.append("around", String(around)) }
    return try await decode(
      ItemPage.self, APIRequest(.listItems(conversation: conversation.rawValue), query: query))
  }

  /// Posts a message; the same client message ID again answers with the stored one.
  func postMessage(_ body: PostItem, in conversation: ConversationID)
    async throws(RequestFailure) -> Item
  {
    try await decode(
      Item.self, APIRequest(.postItem(conversation: conversation.rawValue), json: body))
  }

  /// `GET /v1/search`: a page of the server's matches, newest first.
  func search(_ query: String, limit: Int, before: String?) async throws(RequestFailure)
    -> SearchResponse
  {
    var items: QueryItems = ["q": query, "limit": String(limit)]
    if let before { items.append("before", before) }
    return try await decode(SearchResponse.self, APIRequest(.search, query: items))
  }

  // MARK: - Receipts

  func receipts(in conversation: ConversationID) async throws(RequestFailure) -> ReceiptsResponse {
    try await decode(
      ReceiptsResponse.self, APIRequest(.receipts(conversation: conversation.rawValue)))
  }

  func postRead(upTo sequence: Int, in conversation: ConversationID)
    async throws(RequestFailure)
  {
    _ = try await send(
      APIRequest(.read(conversation: conversation.rawValue), json: UpTo(upToSequence: sequence)))
  }

  func postDelivered(upTo sequence: Int, in conversation: ConversationID)
    async throws(RequestFailure)
  {
    _ = try await send(
      APIRequest(
        .delivered(conversation: conversation.rawValue), json: UpTo(upToSequence: sequence)))
  }

  // MARK: - Conversations

  /// `GET /v1/sync?cursor=`; with `wait`, a long poll held up to that long.
  func sync(cursor: String?, wait: Duration? = nil) async throws(RequestFailure) -> SyncResponse {
    var request = APIRequest(.sync, query: cursor.map { ["cursor": $0] } ?? [:])
    if let wait {
      request.query.append("wait", String(wait.components.seconds))
      request.timeout = wait + Self.longPollMargin
    }
    return try await decode(SyncResponse.self, request)
  }

  /// What a long poll's reply may take beyond its wait (the network, a busy server).
  static let longPollMargin = Duration.seconds(15)

  func registerPush(_ registration: PushRegistration) async throws(RequestFailure) {
    _ = try await send(APIRequest(.registerPush, json: registration))
  }

  func removePush() async throws(RequestFailure) {
    _ = try await send(APIRequest(.removePush))
  }

  func changeMembers(_ body: ChangeMembers, in conversation: ConversationID)
    async throws(RequestFailure) -> Item
  {
    try await decode(
      Item.self, APIRequest(.changeMembers(conversation: conversation.rawValue), json: body))
  }

  /// What a draft save came to: the new version, or the server's draft (a 409).
  enum DraftAnswer: Sendable, Equatable {
    case saved(version: Int)
    case conflict(Draft)
  }

  /// `PUT /v1/conversations/{id}/draft` (API.md Part 3): a 409 is an answer here, not a
  /// failure: its body is the server's draft.
  func saveDraft(_ body: SaveDraft, in conversation: ConversationID)
    async throws(RequestFailure) -> DraftAnswer
  {
    let request = APIRequest(.draft(conversation: conversation.rawValue), json: body)
    let response = try await send(request, accepting: 409)
    if response.status == 409 {
      return .conflict(try Self.read(DraftConflict.self, from: response, of: request).draft)
    }
    return .saved(version: try Self.read(DraftSaved.self, from: response, of: request).version)
  }

  /// `PUT` (or `DELETE`) `/v1/users/me/blocked/{userId}`, then the whole list as it is now.
  func setBlocked(_ user: UserID, block: Bool) async throws(RequestFailure) -> [String] {
    _ = try await send(
      APIRequest(block ? .block(user: user.rawValue) : .unblock(user: user.rawValue)))
    return try await decode(BlockedUsers.self, APIRequest(.blockedUsers)).userIds
  }

  func mute(_ body: Mute, in conversation: ConversationID) async throws(RequestFailure) {
    _ = try await send(APIRequest(.mute(conversation: conversation.rawValue), json: body))
  }

  func changeTitle(_ body: ChangeTitle, in conversation: ConversationID)
    async throws(RequestFailure) -> Item
  {
    try await decode(
      Item.self, APIRequest(.changeTitle(conversation: conversation.rawValue), json: body))
  }

  func createConversation(_ body: CreateConversation) async throws(RequestFailure)
    -> ConversationItem
  {
    try await decode(
      CreatedConversation.self, APIRequest(.createConversation, json: body)
    ).conversation
  }

  // MARK: - Media

  func createUpload(_ body: CreateUpload) async throws(RequestFailure) -> Upload {
    try await decode(Upload.self, APIRequest(.createUpload, json: body))
  }

  func uploadStatus(_ key: String) async throws(RequestFailure) -> UploadStatus {
    try await decode(UploadStatus.self, APIRequest(.upload(key: key)))
  }

  func completeUpload(_ key: String, parts: [ReceivedPart]) async throws(RequestFailure)
    -> UploadCompleted
  {
    try await decode(
      UploadCompleted.self,
      APIRequest(.completeUpload(key: key), json: CompleteUpload(parts: parts)))
  }

  func mediaDownload(_ key: String) async throws(RequestFailure) -> MediaDownload {
    try await decode(MediaDownload.self, APIRequest(.media(key: key)))
  }

  // MARK: - Sign-in (no token)

  /// `POST /v1/auth/dev-login`: a server in dev mode signs anyone in.
  static func devLogin(
    user: UserID, device: DeviceID, transport: any HTTPTransport, retryPolicy: RetryPolicy
  ) async throws(RequestFailure) -> Tokens {
    let request = APIRequest(
      .devLogin, json: DevLogin(userId: user.rawValue, deviceId: device.rawValue))
    let response: APIResponse
    do {
      response = try await transport.send(request)
    } catch {
      throw map(error)
    }
    guard response.status == 200 else { throw classify(response, retryPolicy: retryPolicy) }
    return try read(Tokens.self, from: response, of: request)
  }

  // MARK: - Plumbing

  private func decode<T: Decodable>(_ type: T.Type, _ request: APIRequest)
    async throws(RequestFailure) -> T
  {
    try Self.read(type, from: try await send(request), of: request)
  }

  /// The body of a successful reply as `T`; an unreadable one is `malformedReply` (temporary:
  /// a proxy's page or a cut body is not the server's answer).
  static func read<T: Decodable>(_ type: T.Type, from response: APIResponse, of request: APIRequest)
    throws(RequestFailure) -> T
  {
    do {
      return try APICoding.decode(T.self, from: response.body)
    } catch {
      throw .malformedReply("\(request.method) \(request.path): \(error)")
    }
  }

  /// Sends with the current token; on 401 refreshes once and sends again.
  /// Sends with a fresh token (refreshed once on a 401); any status but 2xx and `accepted` is
  /// a failure.
  private func send(_ request: APIRequest, accepting accepted: Int? = nil)
    async throws(RequestFailure) -> APIResponse
  {
    let token = try await session.accessToken()
    let response = try await attempt(request, token: token)
    guard response.status == 401 else { return try check(response, accepting: accepted) }
    let fresh = try await session.refresh(after: token)
    let retried = try await attempt(request, token: fresh)
    guard retried.status == 401 else { return try check(retried, accepting: accepted) }
    await session.signOut()
    throw .signedOut
  }

  private func attempt(_ request: APIRequest, token: String) async throws(RequestFailure)
    -> APIResponse
  {
    var request = request
    request.headers["Authorization"] = "Bearer \(token)"
    do {
      return try await transport.send(request)
    } catch {
      throw Self.map(error)
    }
  }

  private func check(_ response: APIResponse, accepting accepted: Int?) throws(RequestFailure)
    -> APIResponse
  {
    guard (200..<300).contains(response.status) || response.status == accepted else {
      throw Self.classify(response, retryPolicy: retryPolicy)
    }
    return response
  }

  static func map(_ error: TransportError) -> RequestFailure {
    switch error {
    case .unreachable(let reason): .unreachable(reason)
    case .offline(let reason): .offline(reason)
    case .timeout: .timeout
    case .tlsFailed(let reason): .tlsFailed(reason)
    }
  }

  /// Maps a non-2xx response: 5xx, 408 and 429 are temporary (not retried before the capped
  /// `Retry-After`); other 4xx are rejections.
  static func classify(_ response: APIResponse, retryPolicy: RetryPolicy) -> RequestFailure {
    switch response.status {
    case 429, 408, 500...599:
      return .unavailable(
        status: response.status,
        retryAfter: retryPolicy.retryAfter(header: response.headers["Retry-After"]))
    case 401:
      return .signedOut
    default:
      let body = response.errorBody
      return .rejected(
        status: response.status, code: body?.error.code ?? "http_\(response.status)",
        message: body?.error.message ?? "HTTP \(response.status)")
    }
  }
}
