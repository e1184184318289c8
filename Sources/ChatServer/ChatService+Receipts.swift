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
      await publishReceipt(raised, in: conversation, to: outcome.memberIds)
    }
    return .noContent
  }

  /// Sends a member's raised numbers live, coalesced by `receipts` (`ReceiptCoalescer`: at
  /// most one `receipts` frame per conversation per window, to its members as of the last
  /// change the frame carries). In a one-to-one conversation where either member blocked the
  /// other (API.md Part 3), the numbers go to the member's own devices only, at once: no
  /// receipts pass between the two, as no typing does.
  func publishReceipt(_ member: MemberReceipts, in conversation: String, to members: [String])
    async
  {
    if members.count == 2, let other = members.first(where: { $0 != member.userId }),
      (try? await store.isBlockBetween(member.userId, other)) ?? false
    {
      publish(.receipts(conversationId: conversation, members: [member]), to: [member.userId])
      return
    }
    switch receipts.add(member, in: conversation, to: members, at: clock.uptime()) {
    case .send(let changed):
      publish(.receipts(conversationId: conversation, members: changed), to: members)
    case .flush(let delay):
      let clock = clock
      let timer = executor.spawn { [weak self] in
        try? await clock.sleep(for: delay)
        await self?.flushReceipts(in: conversation)
      }
      receipts.waitForFlush(timer, in: conversation)
    case .held:
      break
    }
  }

  /// The end of a window: its changes in one frame.
  func flushReceipts(in conversation: String) {
    guard let frame = receipts.flush(conversation, at: clock.uptime()) else { return }
    publish(
      .receipts(conversationId: conversation, members: frame.members), to: frame.recipients)
  }
}
