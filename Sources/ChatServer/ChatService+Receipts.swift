import ChatAPI

extension ChatService {
  /// `GET /v1/conversations/{id}/receipts`.
  func receipts(in rawConversation: String, for caller: String) async throws
    -> APIResponse
  {
    let conversation = try Self.conversationID(rawConversation)
    let snapshot = try await store.receipts(in: conversation, visibleTo: caller)
    return .json(200, snapshot.response(for: caller))
  }

  /// `POST /v1/conversations/{id}/delivered` and `…/read`: 204; a rise goes live to every
  /// member's devices.
  func raiseReceipt(
    _ kind: ReceiptKind, in rawConversation: String, _ request: APIRequest, by caller: String
  ) async throws -> APIResponse {
    let body = try RequestBody(request.body)
    let conversation = try Self.conversationID(rawConversation)
    let sequence = try body.decode(UpTo.self).upToSequence
    let outcome = try await store.raiseReceipt(kind, in: conversation, by: caller, upTo: sequence)
    if let raised = outcome.raised {
      publishReceipt(raised, in: conversation, to: outcome.memberIds)
    }
    return .noContent
  }

  /// How often a socket may get a `receipts` frame of one conversation (API.md Part 2).
  static let receiptsWindow = Duration.milliseconds(250)

  /// Sends a member's raised numbers live, coalesced (API.md Part 2, "Read by N"): at most one
  /// `receipts` frame per conversation per `receiptsWindow`, carrying every member whose
  /// numbers changed in it. A change after a quiet window goes at once; one inside a window
  /// waits for its end, with every other change of that window. Every socket of a
  /// conversation gets the same frames, so the limit holds per socket. The frame goes to the
  /// members as of the last change it carries (a removal is a change: the removed member's
  /// sockets hear nothing after it).
  func publishReceipt(_ member: MemberReceipts, in conversation: String, to members: [String]) {
    let now = clock.uptime()
    var window = receiptWindows[conversation] ?? ReceiptWindow()
    window.recipients = members
    if !window.isWaiting, window.lastFrame.map({ now - $0 >= Self.receiptsWindow }) ?? true {
      window.lastFrame = now
      receiptWindows[conversation] = window
      publish(.receipts(conversationId: conversation, members: [member]), to: members)
      return
    }
    let held = window.pending[member.userId]
    window.pending[member.userId] = MemberReceipts(
      userId: member.userId, deliveredUpTo: max(held?.deliveredUpTo ?? 0, member.deliveredUpTo),
      readUpTo: max(held?.readUpTo ?? 0, member.readUpTo))
    if !window.isWaiting {
      window.isWaiting = true
      let delay = (window.lastFrame ?? now) + Self.receiptsWindow - now
      let clock = clock
      window.flush = executor.spawn { [weak self] in
        try? await clock.sleep(for: delay)
        await self?.flushReceipts(in: conversation)
      }
    }
    receiptWindows[conversation] = window
  }

  /// The end of a window: its changes in one frame.
  func flushReceipts(in conversation: String) {
    guard var window = receiptWindows[conversation], window.isWaiting else { return }
    let members = window.pending.values.sorted { $0.userId < $1.userId }
    let recipients = window.recipients
    window = ReceiptWindow(lastFrame: clock.uptime())
    receiptWindows[conversation] = window
    guard !members.isEmpty else { return }
    publish(.receipts(conversationId: conversation, members: members), to: recipients)
    if receiptWindows.count > Self.receiptWindowsLimit { forgetQuietReceiptWindows() }
  }

  /// Windows that ended long ago say nothing any more: a change there goes at once anyway.
  private func forgetQuietReceiptWindows() {
    let now = clock.uptime()
    receiptWindows = receiptWindows.filter { _, window in
      window.isWaiting || window.lastFrame.map { now - $0 < Self.receiptsWindow } ?? false
    }
  }

  static let receiptWindowsLimit = 4_096

  /// The frames due at the end of their windows, for a test that moved the clock past them.
  func dueReceiptFrames() -> [Task<Void, Never>] {
    receiptWindows.keys.sorted().compactMap { receiptWindows[$0]?.flush }
  }
}

/// One conversation's coalescing of receipt changes.
struct ReceiptWindow: Sendable {
  /// When its last `receipts` frame went.
  var lastFrame: Duration?
  /// A frame is due at the end of the window.
  var isWaiting = false
  /// The changes the next frame carries, by user.
  var pending: [String: MemberReceipts] = [:]
  var recipients: [String] = []
  /// The task that sends the frame due.
  var flush: Task<Void, Never>?
}
