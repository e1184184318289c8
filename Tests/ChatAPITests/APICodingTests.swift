import ChatAPI
import Foundation
import Testing

@Suite struct APICodingTests {
  static let message = Item(
    id: "7e1c0f3a-0000-4000-8000-000000000001",
    clientMessageId: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    conversationId: "5b0c6d7e-0000-4000-8000-000000000002", senderId: "alice",
    text: "On my way", sequence: 418, sentAt: "2026-11-30T14:02:03.123Z")

  /// A shape's fields come out in its declared order, as API.md lists them, every time.
  @Test func fieldsAreWrittenInAPIOrder() {
    #expect(
      String(decoding: APICoding.encode(Self.message), as: UTF8.self)
        == #"{"id":"7e1c0f3a-0000-4000-8000-000000000001","clientMessageId":"0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","conversationId":"5b0c6d7e-0000-4000-8000-000000000002","senderId":"alice","text":"On my way","sequence":418,"sentAt":"2026-11-30T14:02:03.123Z"}"#
    )
  }

  /// A conversation item writes `lastMessage: null`; the create answer leaves it out.
  @Test func lastMessageIsNullInListsAndAbsentFromTheCreateAnswer() throws {
    let item = ConversationItem(
      id: "c", title: "Hiking", memberIds: ["alice", "bob"], lastSequence: 0, readUpTo: 0,
      lastMessage: nil, createdAt: "2026-11-30T14:02:03.123Z")
    let listed = try #require(
      try JSONSerialization.jsonObject(with: Data(APICoding.encode(item))) as? [String: Any])
    #expect(
      Set(listed.keys) == [
        "id", "title", "memberIds", "lastSequence", "readUpTo", "lastMessage", "createdAt",
      ])
    #expect(listed["lastMessage"] is NSNull)
    let created = try #require(
      try JSONSerialization.jsonObject(with: Data(APICoding.encode(CreatedConversation(item))))
        as? [String: Any])
    #expect(
      Set(created.keys) == ["id", "title", "memberIds", "lastSequence", "readUpTo", "createdAt"])
    #expect(
      try APICoding.decode(
        CreatedConversation.self, from: APICoding.encode(CreatedConversation(item))
      ).conversation == item)
  }

  /// Every shape reads back what it wrote (Part 2's fields included).
  @Test func shapesRoundTrip() throws {
    var edited = Self.message
    edited.kind = .message
    edited.editedAt = "2026-11-30T14:05:00.000Z"
    edited.deleted = false
    // A Part 2 item always carries both arrays (empty unless it is a members item).
    edited.added = []
    edited.removed = []
    edited.media = Media(
      key: "m1", kind: .image, contentType: "image/jpeg", byteCount: 183_211,
      sha256: String(repeating: "a", count: 64), width: 1_600, height: 1_200, thumbnail: "AAAA")
    #expect(try APICoding.decode(Item.self, from: APICoding.encode(edited)) == edited)
    let conversation = ConversationItem(
      id: "c", title: "t", memberIds: ["a"], lastSequence: 57, readUpTo: 3,
      lastMessage: Self.message, createdAt: "2026-11-30T14:02:03.123Z",
      visible: [VisibleRange(first: 1, last: 40), VisibleRange(first: 57, last: nil)],
      membership: .member, createdBy: "a", mutedUntil: Mute.forever)
    #expect(
      try APICoding.decode(ConversationItem.self, from: APICoding.encode(conversation))
        == conversation)
    #expect(
      String(decoding: APICoding.encode(conversation.visible), as: UTF8.self)
        == "[[1,40],[57,null]]")
    let receipts = ReceiptsResponse(
      deliveredUpTo: 418, readUpTo: 417,
      members: [MemberReceipts(userId: "bob", deliveredUpTo: 418, readUpTo: 417)])
    #expect(
      try APICoding.decode(ReceiptsResponse.self, from: APICoding.encode(receipts)) == receipts)
    let payload = PushPayload(
      aps: .init(alert: .init(title: "Hiking", body: "bob: on my way"), badge: 3, threadId: "c"),
      conversationId: "c", sequence: 9)
    #expect(
      String(decoding: APICoding.encode(payload), as: UTF8.self).contains(#""thread-id":"c""#))
    #expect(try APICoding.decode(PushPayload.self, from: APICoding.encode(payload)) == payload)
    #expect(
      String(decoding: APICoding.encode(Mute(until: nil)), as: UTF8.self) == #"{"until":null}"#)
  }

  /// A Part 1 message has exactly Part 1's fields, and reads as a message.
  @Test func aPartOneMessageKeepsPartOnesFields() throws {
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(APICoding.encode(Self.message)))
        as? [String: Any])
    #expect(
      Set(object.keys) == [
        "id", "clientMessageId", "conversationId", "senderId", "text", "sequence", "sentAt",
      ])
    #expect(
      try APICoding.decode(Item.self, from: APICoding.encode(Self.message)).effectiveKind
        == .message)
  }

  @Test func liveEventsRoundTripByType() throws {
    let events: [LiveEvent] = [
      .message(conversationId: "c", message: Self.message),
      .receipt(conversationId: "c", MemberReceipts(userId: "bob", deliveredUpTo: 2, readUpTo: 1)),
      .receipts(
        conversationId: "c", members: [MemberReceipts(userId: "bob", deliveredUpTo: 2, readUpTo: 1)]
      ),
      .typing(conversationId: "c", userId: "bob"),
      .conversation(
        ConversationItem(
          id: "c", title: "t", memberIds: ["a"], lastSequence: 0, readUpTo: 0, lastMessage: nil,
          createdAt: "2026-11-30T14:02:03.123Z")),
    ]
    for event in events {
      #expect(try APICoding.decode(LiveEvent.self, from: event.text) == event)
      #expect(event.text.hasPrefix(#"{"type":"#))
    }
    #expect(
      LiveEvent.receipt(
        conversationId: "c", MemberReceipts(userId: "bob", deliveredUpTo: 2, readUpTo: 1)
      ).text
        == #"{"type":"receipt","conversationId":"c","userId":"bob","deliveredUpTo":2,"readUpTo":1}"#
    )
    #expect(
      try APICoding.decode(LiveEvent.self, from: #"{"type":"presence","userId":"bob"}"#)
        == .unknown(type: "presence"))
    #expect(ClientFrame.typing(in: "c").text == #"{"type":"typing","conversationId":"c"}"#)
  }

  /// Reading ignores fields a newer server adds, and treats `null` as absent.
  @Test func readingToleratesUnknownFieldsAndNull() throws {
    let text =
      #"{"accessToken":"a","refreshToken":"r","expiresAt":"x","userId":"u","deviceId":"d","scope":["all"]}"#
    #expect(try APICoding.decode(Tokens.self, from: text).userId == "u")
    let create = try APICoding.decode(
      CreateConversation.self, from: #"{"title":null,"memberIds":[]}"#)
    #expect(create.title == nil)
  }

  /// A missing or mistyped field is an error that names it in API.md's words.
  @Test(arguments: [
    (#"{"text":"hi"}"#, "clientMessageId must be a string."),
    (#"{"clientMessageId":5}"#, "clientMessageId must be a string."),
    (#"{"clientMessageId":"x","text":["hi"]}"#, "text must be a string."),
  ])
  func aWrongFieldIsNamed(body: String, problem: String) {
    do {
      _ = try APICoding.decode(PostItem.self, from: body)
      Issue.record("\(body) was read")
    } catch {
      #expect(APICoding.problem(error) == problem)
    }
  }

  @Test func arraysOfTheWrongElementsAreNamed() {
    do {
      _ = try APICoding.decode(CreateConversation.self, from: #"{"memberIds":["bob",7]}"#)
      Issue.record("a number was read as a user id")
    } catch {
      #expect(APICoding.problem(error) == "memberIds must hold only strings.")
    }
  }

  /// API.md's integer rule: a whole number however written, clamped when too large for `Int`
  /// (so the range check refuses it with a 422), a fraction refused.
  @Test func integersFollowTheContract() throws {
    #expect(try APICoding.decode(UpTo.self, from: #"{"upToSequence":7}"#).upToSequence == 7)
    #expect(try APICoding.decode(UpTo.self, from: #"{"upToSequence":7.0}"#).upToSequence == 7)
    #expect(try APICoding.decode(UpTo.self, from: #"{"upToSequence":1e30}"#).upToSequence == .max)
    #expect(try APICoding.decode(UpTo.self, from: #"{"upToSequence":-1e30}"#).upToSequence == .min)
    #expect(throws: JSONShapeError.self) {
      try APICoding.decode(UpTo.self, from: #"{"upToSequence":1.5}"#)
    }
    #expect(throws: JSONShapeError.self) {
      try APICoding.decode(UpTo.self, from: #"{"upToSequence":"7"}"#)
    }
  }

  /// Strings keep their exact bytes: no Unicode normalisation on the way in or out.
  @Test func stringsKeepTheirExactBytes() throws {
    let composed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    let first = try APICoding.decode(
      PostItem.self, from: APICoding.encode(PostItem(clientMessageId: "x", text: composed)))
    let second = try APICoding.decode(
      PostItem.self, from: APICoding.encode(PostItem(clientMessageId: "x", text: decomposed)))
    #expect(Array(first.text!.utf8) == Array(composed.utf8))
    #expect(Array(second.text!.utf8) == Array(decomposed.utf8))
  }
}

@Suite struct EndpointTests {
  static let routes: [(method: String, path: String, endpoint: Endpoint)] = [
    ("GET", "/healthz", .healthz),
    ("GET", "/metrics", .metrics),
    ("POST", "/v1/auth/dev-login", .devLogin),
    ("POST", "/v1/auth/refresh", .refresh),
    ("POST", "/v1/conversations", .createConversation),
    ("GET", "/v1/conversations", .listConversations),
    ("GET", "/v1/sync", .sync),
    ("PATCH", "/v1/conversations/c1", .changeTitle(conversation: "c1")),
    ("POST", "/v1/conversations/c1/members", .changeMembers(conversation: "c1")),
    ("PUT", "/v1/conversations/c1/mute", .mute(conversation: "c1")),
    ("GET", "/v1/conversations/c1/messages", .listItems(conversation: "c1")),
    ("POST", "/v1/conversations/c1/messages", .postItem(conversation: "c1")),
    ("GET", "/v1/conversations/c1/receipts", .receipts(conversation: "c1")),
    ("POST", "/v1/conversations/c1/delivered", .delivered(conversation: "c1")),
    ("POST", "/v1/conversations/c1/read", .read(conversation: "c1")),
    ("GET", "/v1/live", .live),
    ("POST", "/v1/media/uploads", .createUpload),
    ("GET", "/v1/media/uploads/k1", .upload(key: "k1")),
    ("POST", "/v1/media/uploads/k1/complete", .completeUpload(key: "k1")),
    ("GET", "/v1/media/k1", .media(key: "k1")),
    ("PUT", "/v1/devices/me/push", .registerPush),
    ("DELETE", "/v1/devices/me/push", .removePush),
    ("GET", "/v1/search", .search),
  ]

  /// Each route of API.md is built and recognised the same way, so client and server agree.
  @Test func everyRouteIsBuiltAndRecognisedAlike() {
    for route in Self.routes {
      #expect(route.endpoint.method == route.method, "\(route.endpoint)")
      #expect(route.endpoint.path == route.path, "\(route.endpoint)")
      #expect(Endpoint(method: route.method, path: route.path) == route.endpoint, "\(route.path)")
    }
  }

  @Test(arguments: [
    ("GET", "/v1/conversations/c1"), ("DELETE", "/v1/conversations/c1/messages"),
    ("POST", "/healthz"), ("GET", "/v1/conversations/c1/messages/extra"), ("GET", "v1/sync"),
    ("GET", "/v2/sync"), ("GET", "/v1/media/uploads"), ("PUT", "/v1/media/k1"), ("GET", ""),
  ])
  func whatAPIMdDoesNotDefineIsNoRoute(method: String, path: String) {
    #expect(Endpoint(method: method, path: path) == nil)
  }

  @Test func patternsHideIdsAndOnlySignInNeedsNoToken() {
    #expect(Endpoint.postItem(conversation: "secret").pattern == "/v1/conversations/{id}/messages")
    #expect(Endpoint.media(key: "secret").pattern == "/v1/media/{key}")
    #expect(
      Self.routes.filter { !$0.endpoint.needsToken }.map(\.path) == [
        "/healthz", "/metrics", "/v1/auth/dev-login", "/v1/auth/refresh",
      ])
  }
}
