import ChatAPI
import ChatIdentifiers
import Support

extension ChatService {
  /// `POST /v1/conversations`: the caller plus `memberIds` (deduplicated), at most 256.
  func createConversation(
    _ request: APIRequest, by caller: String, at now: Timestamp
  ) async throws -> APIResponse {
    let create = try RequestBody(request.body).decode(CreateConversation.self)
    let title = create.title ?? ""
    let requested = create.memberIds
    guard requested.allSatisfy({ UserID(rawValue: $0) != nil }) else {
      throw ServiceError.badRequest(
        "memberIds must hold user ids: 1–64 characters of a-z, 0-9, '.', '_' or '-'.")
    }
    let memberIds = Set(requested + [caller]).sorted()
    guard memberIds.count <= APILimits.maxMembers else {
      throw ServiceError.invalid(
        "A conversation holds at most \(APILimits.maxMembers) members, you included.")
    }
    let item = try await store.createConversation(
      id: random.uuidString(), title: title, memberIds: memberIds, createdBy: caller, at: now)
    publish(.conversation(item), to: item.memberIds)
    return .json(201, CreatedConversation(item))
  }

  /// `GET /v1/conversations`: the caller's, newest activity first.
  func listConversations(of caller: String) async throws -> APIResponse {
    let (items, _) = try await store.conversations(of: caller, changedAfter: nil)
    return .json(200, ConversationList(items: items))
  }

  /// `GET /v1/sync?cursor=&wait=`: the caller's conversations changed since the cursor (all
  /// without one), and the next cursor. A cursor is opaque to clients (a change version in
  /// decimal on SQLite, a snapshot on PostgreSQL: `SQLDialect`); anything that is not one this
  /// server issued is a 400.
  ///
  /// With `wait` (1–60 seconds) and a cursor, a sync that finds nothing is held (long poll,
  /// for networks that block WebSockets) until something changes for the caller, `wait` runs
  /// out (then: the same cursor, no items) or the server stops. A user holds at most
  /// `longPollsPerUser` at once (429 beyond): held requests count against the server's limits.
  func sync(_ request: APIRequest, for caller: String, at now: Timestamp)
    async throws -> APIResponse
  {
    // Checked by the store: what a cursor is depends on the database.
    let cursor = request.query["cursor"]
    let wait = try QueryParameters.integer("wait", in: request.query)
    if let wait, !Self.longPollWaits.contains(wait) {
      throw ServiceError.invalid("wait must be between 1 and 60 seconds.")
    }
    var poll: UInt64?
    if wait != nil, cursor != nil {
      guard fanOut.longPolls.count(of: caller) < Self.longPollsPerUser else {
        throw ServiceError(
          .rateLimited, "Too many long polls held at once; use fewer.", retryAfterSeconds: 1)
      }
      poll = fanOut.longPolls.arm(caller)
    }
    defer { if let poll { fanOut.longPolls.disarm(poll) } }
    // The block list is read after the conversations: a block between the two reads is
    // answered now and again next time (the whole list: the same answer), never missed.
    var (items, next, blocked) = try await changes(for: caller, after: cursor)
    if let poll, let wait {
      // A wake-up that brings nothing for the cursor (a change the caller cannot see, or one
      // already answered) holds again, for the rest of `wait`.
      let deadline = clock.uptime() + .seconds(wait)
      while items.isEmpty, blocked == nil, !fanOut.longPolls.isEnding, clock.uptime() < deadline {
        await hold(poll, until: deadline)
        fanOut.longPolls.rearm(poll)
        (items, next, blocked) = try await changes(for: caller, after: cursor)
      }
    }
    // API.md: nothing changed for the caller, the same cursor.
    if items.isEmpty, blocked == nil, let cursor { next = cursor }
    return .json(200, SyncResponse(conversations: items, cursor: next, blocked: blocked))
  }

  /// The conversations changed after `cursor` and the block list when it changed: one
  /// catch-up read (a long poll held counts only while it reads).
  private func changes(for caller: String, after cursor: String?) async throws -> (
    [ConversationItem], String, [String]?
  ) {
    try await admittingCatchUp {
      let (items, next) = try await store.conversations(of: caller, changedAfter: cursor)
      let blocked = try await store.blockedIfChanged(caller, since: cursor)
      return (items, next, blocked)
    }
  }

  /// API.md: `wait` is 1–60 seconds.
  static let longPollWaits = 1...60
  /// Long polls one user may hold at once (a few devices, each polling).
  static let longPollsPerUser = 8

  /// Suspends a long poll until it is woken (a change, the server stopping) or the clock's
  /// uptime reaches `deadline`.
  private func hold(_ poll: UInt64, until deadline: Duration) async {
    guard !fanOut.longPolls.isWoken(poll) else { return }
    let clock = clock
    let timer = executor.spawn { [weak self] in
      // Measured when the task runs: the clock may have moved since it was made. An idle wait:
      // it waits for the caller's next change, nothing else.
      let slept = await IdleWait.$isActive.withValue(true) {
        (try? await clock.sleep(for: deadline - clock.uptime())) != nil
      }
      guard slept else { return }
      await self?.wakeLongPoll(poll)
    }
    await withCheckedContinuation { continuation in fanOut.longPolls.hold(poll, continuation) }
    timer.cancel()
  }

  private func wakeLongPoll(_ poll: UInt64) {
    fanOut.longPolls.wake(poll)
  }

  /// The server is stopping: every held long poll answers now (nothing changed: the same
  /// cursor), and none is held from here on, so a graceful stop does not wait out `wait`.
  public func endLongPolls() {
    fanOut.longPolls.endAll()
  }
}
