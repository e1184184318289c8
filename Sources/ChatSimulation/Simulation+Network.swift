import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatServer
import ChatWorld
import Foundation

// The simulated network between the devices and the server.
//
// HTTP: a request travels for a few milliseconds (seconds when delayed, which reorders it
// against the device's other requests), the server handles it on its own executor, and the
// reply travels back. Faults, drawn per request from the seed: the request is dropped (the
// device times out, the server never saw it), the reply is lost after the server acted (the
// device times out: the case client message IDs exist for), a proxy answers 5xx or 429 with
// Retry-After, or a filter refuses a message for good (422, on every post of that ID). A device
// that is offline, or a server that is down, refuses at once. Every request times out after
// `requestTimeout` (a long poll after its own `APIRequest.timeout`), as `URLSessionTransport`
// does.
//
// Live: a socket is a server subscription and a device-side stream; frames keep their order
// (TCP) unless a fault duplicates or swaps them, or the socket goes silent (every event lost
// until the pings find it dead and it drops, as a half-open TCP connection does). A drop ends
// both sides.

extension Simulation {
  static let requestTimeout: Duration = .seconds(15)

  func latency() -> Duration {
    faultRandom.duration(.milliseconds(2)...(.milliseconds(80)))
  }

  // MARK: - HTTP

  /// A request leaving `device`: refused at once when the run is over or the device offline;
  /// else its timeout starts, and its travel time is drawn (delayed by a fault, sometimes) or
  /// it is dropped on the way. Returns the travel time, or nil when it goes no further.
  private func depart(
    _ what: String, from device: SimDevice, _ incarnation: Incarnation, _ exchange: Exchange,
    timeout limit: Duration? = nil
  ) -> Duration? {
    if world.isEnding {
      exchange.finish(.failure(.unreachable("the simulation is over")))
      return nil
    }
    if world.now < device.offlineUntil {
      world.schedule(after: .milliseconds(1)) {
        exchange.finish(.failure(.unreachable("no network")))
      }
      return nil
    }
    // A request with a limit of its own is a long poll: its timeout waits for the server only.
    let timeout = world.schedule(
      after: max(Self.requestTimeout, limit ?? .zero), idle: limit != nil
    ) {
      exchange.finish(.failure(.timeout))
    }
    exchange.onFinish = { [world] in world.cancel(timeout) }
    var travel = latency()
    if faultRandom.chance(faults.delay) {
      count(.delayed)
      travel += faultRandom.duration(.seconds(1)...(.seconds(20)))
    }
    if faultRandom.chance(faults.dropRequest) {
      count(.requestDropped)
      history.trace("fault drop \(incarnation.name) \(what)")
      return nil
    }
    return travel
  }

  /// One request from `incarnation` of `device`: resolves `exchange` exactly once.
  func startExchange(
    _ request: APIRequest, from device: SimDevice, _ incarnation: Incarnation,
    _ exchange: Exchange
  ) {
    let what = describe(request)
    let postedID = request.method == "POST" ? Self.clientMessageID(in: request) : nil
    if let postedID, request.path.hasSuffix("/messages"),
      [nil, .message].contains(Self.postedItem(in: request)?.kind),
      let id = MessageID(rawValue: postedID.lowercased())
    {
      checker.posted(id, from: device.name)
    }
    guard let travel = depart(what, from: device, incarnation, exchange, timeout: request.timeout)
    else { return }
    if let injected = injectedStatus(for: request, postedID: postedID) {
      history.trace("fault \(injected.status) \(incarnation.name) \(what)")
      // A refusal for good: a 4xx other than 401 (refresh) and 429 (come back later).
      if (400..<500).contains(injected.status), ![401, 429].contains(injected.status),
        let postedID
      {
        history.refused(clientMessageID: postedID, deleting: Self.deleteTarget(in: request))
      }
      world.schedule(after: travel + latency()) { exchange.finish(.success(injected)) }
      return
    }
    let loseReply = faultRandom.chance(faults.loseReply)
    if let postedID { forwarded.insert(postedID.lowercased()) }
    world.schedule(after: travel) { [self] in
      guard let service = server.service, let executor = server.executor, !world.isEnding else {
        world.schedule(after: latency()) {
          exchange.finish(.failure(.unreachable("connection refused")))
        }
        return
      }
      executor.spawn { [self] in
        let response = await service.handle(request)
        answered(request, what: what, response, from: incarnation, server: executor)
        guard server.isCurrent(executor) else { return }
        if loseReply {
          count(.replyLost)
          history.trace("fault lose-reply \(incarnation.name) \(what)")
          return
        }
        world.schedule(after: latency()) {
          exchange.finish(.success(response))
        }
      }
    }
  }

  // MARK: - Object storage

  /// One request to the object store (a part's `PUT`, a ranged `GET`): the same network as
  /// the API's, with its faults (offline, dropped, delayed, reply lost after the store acted,
  /// a 503), and the store itself never down. A `GET` reply may come back spoiled (its first
  /// byte changed) when the plan says so: the engine must notice by the sha256.
  func startObjectExchange(
    _ request: ObjectRequest, from device: SimDevice, _ incarnation: Incarnation,
    _ exchange: Exchange
  ) {
    let what = "\(request.method) object"
    guard let travel = depart(what, from: device, incarnation, exchange) else { return }
    if faultRandom.chance(faults.serverError) {
      count(.serverError)
      history.trace("fault 503 \(incarnation.name) \(what)")
      world.schedule(after: travel + latency()) {
        exchange.finish(.success(APIResponse(status: 503)))
      }
      return
    }
    let loseReply = faultRandom.chance(faults.loseReply)
    let spoil = request.method == "GET" && faultRandom.chance(faults.spoilDownload)
    world.schedule(after: travel) { [self] in
      var response = server.objects.handle(request)
      if loseReply {
        count(.replyLost)
        history.trace("fault lose-reply \(incarnation.name) \(what)")
        return
      }
      if spoil, !response.body.isEmpty {
        count(.spoiled)
        history.trace("fault spoil \(incarnation.name) \(what)")
        response.body[0] ^= 0xFF
      }
      world.schedule(after: latency()) { exchange.finish(.success(response)) }
    }
  }

  /// A proxy's answer instead of the server's, if a fault strikes.
  private func injectedStatus(for request: APIRequest, postedID: String?) -> APIResponse? {
    let isSend = request.method == "POST" && request.path.hasSuffix("/messages")
    if isSend, let postedID {
      let key = postedID.lowercased()
      if poisoned.contains(key) {
        count(.rejected)
        return Self.errorResponse(422, "invalid", retryAfter: nil)
      }
      // Only an ID the server never saw: a server that stored it answers 200 to a retry.
      let isChange = [.edit, .delete].contains(Self.postedItem(in: request)?.kind)
      if !forwarded.contains(key),
        faultRandom.chance(
          isChange ? max(faults.rejectSend, faults.rejectChange) : faults.rejectSend)
      {
        poisoned.insert(key)
        count(.rejected)
        return Self.errorResponse(422, "invalid", retryAfter: nil)
      }
    }
    if request.method == "GET", request.path == Endpoint.sync.path,
      faultRandom.chance(faults.syncFailure)
    {
      count(.serverError)
      return Self.errorResponse(503, "unavailable", retryAfter: nil)
    }
    if faultRandom.chance(faults.serverError) {
      count(.serverError)
      return Self.errorResponse(faultRandom.pick([500, 502, 503]), "unavailable", retryAfter: nil)
    }
    if faultRandom.chance(faults.rateLimit) {
      count(.rateLimited)
      return Self.errorResponse(429, "rate_limited", retryAfter: faultRandom.int(in: 1...30))
    }
    return nil
  }

  /// Records what the server answered (before any fault decides whether the device hears it).
  private func answered(
    _ request: APIRequest, what: String, _ response: APIResponse, from incarnation: Incarnation,
    server executor: SteppedExecutor
  ) {
    let serverName = executor.name
    if response.status == 401 { count(.tokenExpired) }
    var line = "\(serverName) \(incarnation.name) \(what) → \(response.status)"
    if request.method == "POST", request.path.hasSuffix("/messages") {
      if let message = try? APICoding.decode(Item.self, from: response.body),
        response.status == 200 || response.status == 201
      {
        history.acknowledged(
          History.Acknowledgement(
            conversation: ConversationID(message.conversationId),
            clientMessageID: message.clientMessageId, sender: message.senderId,
            sequence: message.sequence))
        if let key = message.media?.key { history.carried(key, by: message.clientMessageId) }
        line += " \(label(ConversationID(message.conversationId)))#\(message.sequence)"
        line += " id=\(message.clientMessageId)"
      } else if (400..<500).contains(response.status), response.status != 401,
        response.status != 429,
        let postedID = Self.clientMessageID(in: request)
      {
        history.refused(clientMessageID: postedID, deleting: Self.deleteTarget(in: request))
        line += " id=\(postedID)"
      }
    }
    if request.method == "POST", request.path == "/v1/conversations", response.status == 201,
      let created = try? APICoding.decode(CreatedConversation.self, from: response.body)
    {
      registerConversation(created.conversation)
      line += " created \(label(ConversationID(created.conversation.id)))"
    }
    if request.method == "POST", request.path.hasSuffix("/members"), response.status == 201,
      let item = try? APICoding.decode(Item.self, from: response.body)
    {
      membersChanged(item)
      line += " #\(item.sequence) +\((item.added ?? []).joined(separator: ","))"
      line += " -\((item.removed ?? []).joined(separator: ","))"
    }
    history.trace(line)
  }

  /// Learns a members change the server made.
  func membersChanged(_ item: Item) {
    guard
      let index = conversations.firstIndex(where: {
        $0.id.rawValue.lowercased() == item.conversationId.lowercased()
      })
    else { return }
    let added = (item.added ?? []).map { UserID($0) }
    let removed = Set((item.removed ?? []).map { UserID($0) })
    conversations[index].members =
      Set(conversations[index].members).union(added).subtracting(removed).sorted()
    conversations[index].everMembers.formUnion(added)
  }

  /// Learns a conversation the server created; `atCreation` when `created` is the answer to
  /// its creation (its members are then the initial ones).
  func registerConversation(_ created: ConversationItem, atCreation: Bool = true) {
    let id = ConversationID(created.id)
    guard members(of: id) == nil else { return }
    let initials = created.memberIds.map { String($0.prefix(1)) }.joined()
    let taken = conversations.filter { $0.label.hasPrefix(initials) }.count
    let label = taken == 0 ? initials : "\(initials)\(taken + 1)"
    let members = created.memberIds.map { UserID($0) }
    conversations.append(
      ConversationInfo(
        id: id, label: label, members: members, everMembers: Set(members),
        initialMembers: atCreation ? members : nil))
    labels[created.id.lowercased()] = label
  }

  /// `POST a/messages id=…`, with conversation ids shortened to their labels.
  func describe(_ request: APIRequest) -> String {
    let parts = request.path.split(separator: "/").map { part -> String in
      labels[part.lowercased()] ?? String(part)
    }
    var text = "\(request.method) \(parts.dropFirst().joined(separator: "/"))"
    for item in request.query { text += " \(item.name)=\(item.value)" }
    if request.method == "POST", let id = Self.clientMessageID(in: request) {
      text += " id=\(id)"
    }
    return text
  }

  static func clientMessageID(in request: APIRequest) -> String? {
    postedItem(in: request)?.clientMessageId
  }

  /// The message a posted delete item targets; nil for any other request.
  static func deleteTarget(in request: APIRequest) -> String? {
    guard let item = postedItem(in: request), item.kind == .delete else { return nil }
    return item.target
  }

  static func postedItem(in request: APIRequest) -> PostItem? {
    guard !request.body.isEmpty else { return nil }
    return try? APICoding.decode(PostItem.self, from: request.body)
  }

  static func errorResponse(_ status: Int, _ code: String, retryAfter: Int?) -> APIResponse {
    HTTPFault.response(status, code: code, retryAfter: retryAfter, by: "the simulation")
  }

  // MARK: - Live

  /// Opens a socket for `incarnation` of `device`.
  func connect(
    headers: HeaderFields, from device: SimDevice, _ incarnation: Incarnation,
    _ attempt: SocketAttempt
  ) {
    if world.isEnding {
      attempt.finish(.failure(.offline("the simulation is over")))
      return
    }
    if world.now < device.offlineUntil {
      world.schedule(after: .milliseconds(1)) { attempt.finish(.failure(.offline("no network"))) }
      return
    }
    let timeout = world.schedule(after: Self.requestTimeout) { attempt.finish(.failure(.timeout)) }
    attempt.onFinish = { [world] in world.cancel(timeout) }
    if faultRandom.chance(faults.dropRequest) {
      count(.requestDropped)
      history.trace("fault drop \(incarnation.name) live")
      return
    }
    world.schedule(after: latency()) { [self] in
      guard let service = server.service, let executor = server.executor, !world.isEnding else {
        world.schedule(after: latency()) {
          attempt.finish(.failure(.offline("connection refused")))
        }
        return
      }
      let request = APIRequest(.live, headers: headers)
      executor.spawn { [self] in
        let upgrade = await service.openLive(request)
        guard server.isCurrent(executor) else { return }
        switch upgrade {
        case .refused(let response):
          if response.status == 401 { count(.tokenExpired) }
          history.trace("\(executor.name) \(incarnation.name) live → \(response.status)")
          world.schedule(after: latency()) {
            attempt.finish(.failure(.rejected(status: response.status)))
          }
        case .accepted(let subscription):
          let socket = SimSocket(
            simulation: self, device: device, incarnation: incarnation,
            subscription: subscription, server: executor)
          history.trace("\(executor.name) \(incarnation.name) live → 101 socket \(socket.id)")
          socket.startPumping()
          world.schedule(after: latency()) {
            if attempt.finish(.success(socket)) {
              if socket.isOpen { device.sockets.append(socket) }
            } else {
              socket.drop(reason: "connect timed out")
            }
          }
        }
      }
    }
  }

  /// What a device receives for one frame the server sent, after the frame faults (ChatWorld's
  /// `FrameLine`: a frame held back arrives after the next one).
  func deliveries(of frame: String, on socket: SimSocket) -> [String] {
    socket.line.pass(frame) { () -> FrameFault? in
      if socket.isSilent { return .lose }
      let isConversationEvent = frame.hasPrefix(#"{"type":"conversation""#)
      if faultRandom.chance(faults.skipEvent)
        || (isConversationEvent && faultRandom.chance(faults.dropConversationEvent))
      {
        // Over TCP an event is lost only with the connection: it looks open but nothing
        // arrives, until the pings find it dead and it drops.
        count(.eventSkipped)
        history.trace("fault silent-socket → \(socket.incarnation.name) \(describeFrame(frame))")
        socket.isSilent = true
        world.schedule(after: faultRandom.duration(.seconds(1)...(.seconds(30)))) {
          socket.drop(reason: "found dead by the pings")
        }
        return .lose
      }
      if faultRandom.chance(faults.duplicateEvent) {
        count(.eventDuplicated)
        history.trace(
          "fault duplicate-event → \(socket.incarnation.name) \(describeFrame(frame))")
        return .duplicate
      }
      if faultRandom.chance(faults.reorderEvent) {
        count(.eventReordered)
        history.trace("fault hold-event → \(socket.incarnation.name) \(describeFrame(frame))")
        socket.holds += 1
        let hold = socket.holds
        // Delivered after the next frame, or late on its own: a reorder loses nothing.
        world.schedule(after: faultRandom.duration(.milliseconds(500)...(.seconds(5)))) {
          guard socket.holds == hold, let held = socket.line.releaseHeld() else { return }
          socket.deliver(held)
        }
        return .holdForNext
      }
      return nil
    }
  }

  /// `message ab#4 id=…`, `receipt ab bob 3/2`, `typing ab bob`.
  func describeFrame(_ frame: String) -> String {
    guard let event = try? APICoding.decode(LiveEvent.self, from: frame) else {
      return "unreadable frame"
    }
    func name(_ id: String) -> String { label(ConversationID(id)) }
    switch event {
    case .message(let conversation, let message):
      return "message \(name(conversation))#\(message.sequence) id=\(message.clientMessageId)"
    case .receipt(let conversation, let member):
      return
        "receipt \(name(conversation)) \(member.userId) \(member.deliveredUpTo)/\(member.readUpTo)"
    case .receipts(let conversation, let members):
      return "receipts \(name(conversation)) \(members.map(\.userId).joined(separator: ","))"
    case .typing(let conversation, let user):
      return "typing \(name(conversation)) \(user)"
    case .conversation(let conversation):
      return "conversation \(name(conversation.id))"
    case .blocked(let users):
      return "blocked \(users.joined(separator: ","))"
    case .unknown(let type):
      return "\(type) ?"
    }
  }
}
