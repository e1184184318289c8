import ChatAPI
import ChatDomain
import Foundation
import Support

extension MessagesRepository {
  // MARK: - Sending

  /// Saves the message as sending (on screen at once), then lets the outbox post it.
  func send(_ text: String, in conversation: ConversationID) async throws(ChatError) -> MessageID {
    let scalars = text.unicodeScalars.count
    guard !text.allSatisfy({ $0.isWhitespace }) else {
      throw .invalidInput("the message is empty")
    }
    guard scalars <= APILimits.maxTextScalars else {
      throw .invalidInput(
        "the message is too long (\(scalars) characters, at most \(APILimits.maxTextScalars))")
    }
    let id = context.ids.next()
    do {
      guard try await store.conversation(conversation) != nil else {
        throw ChatError.notFound("conversation \(conversation)")
      }
      try await store.insertPending(
        MessageRecord(
          conversationID: conversation, clientID: id, senderID: context.me, serverID: nil,
          text: text, sequence: nil, sentAt: context.clock.now().date, state: .sending,
          failure: nil))
    } catch {
      throw ChatError(error)
    }
    savedAt[id] = context.clock.uptime()
    context.log.write(LogRecord(.info, "send.saved", [("conversation", "\(conversation)")]))
    await reportOutboxSize()
    flushOutbox()
    return id
  }

  /// A tapped retry: a failed message goes to the back of the queue with the same ID. A message
  /// still sending is simply given a chance now.
  func retry(_ id: MessageID) async {
    do {
      if try await store.requeue(id, sender: context.me) {
        savedAt[id] = context.clock.uptime()
        context.log.write(LogRecord(.info, "send.retry_tapped"))
      }
    } catch {
      context.log.write(LogRecord(.error, "send.retry_failed", [("error", "\(error)")]))
    }
    wakeFromNetworkPause()
    flushOutbox()
  }

  /// The network is back: a pause caused by the network ends now.
  func networkReturned() {
    wakeFromNetworkPause()
    flushOutbox()
  }

  private func wakeFromNetworkPause() {
    if pausedByNetwork {
      outboxAttempts = 0
      pause?.cancel()
    }
  }

  /// Starts the outbox loop unless it is running; a running loop looks again before it ends.
  func flushOutbox() {
    outboxWanted = true
    guard isRunning, outboxTask == nil else { return }
    outboxTask = context.spawn { await self.runOutbox() }
  }

  private func runOutbox() async {
    defer { outboxTask = nil }
    while isRunning {
      outboxWanted = false
      let outcome = await postNext()
      switch outcome {
      case nil:
        if outboxWanted { continue }
        return
      case .accepted?, .rejected?:
        outboxAttempts = 0
      case .signedOut?:
        stop()
      case .temporary(let error)?:
        await pauseAfter(error)
      }
    }
  }

  /// Posts the oldest queued message, one post at a time whoever posts (the outbox loop or
  /// `drainOutbox`); nil when nothing is queued.
  private func postNext() async -> PostOutcome? {
    await posting.withLock(0) { () async -> PostOutcome? in
      guard let message = await nextToSend() else { return nil }
      return await post(message)
    }
  }

  /// Posts every queued message once, in order, without waiting out a backoff: returns at the
  /// first temporary failure with the number of rows left (the command-line `sync`).
  func drainOutbox() async -> Int {
    posting: while true {
      let outcome = await postNext()
      switch outcome {
      case .accepted?, .rejected?: continue posting
      case nil, .signedOut?, .temporary?: break posting
      }
    }
    return (try? await store.outboxCount()) ?? 0
  }

  private func nextToSend() async -> MessageRecord? {
    do {
      return try await store.nextUnsent()
    } catch {
      context.log.write(LogRecord(.error, "outbox.read_failed", [("error", "\(error)")]))
      return nil
    }
  }

  /// Waits out the backoff after a temporary failure; the network coming back ends a pause the
  /// network caused.
  private func pauseAfter(_ error: RequestFailure) async {
    // `stop()` may have run while the post was in flight; it cancels only a pause that exists,
    // so a pause must not begin after it (nothing would end it).
    guard isRunning else { return }
    outboxAttempts += 1
    let delay = context.retryPolicy.delay(
      afterFailure: outboxAttempts, retryAfter: error.retryAfter, random: context.random)
    context.log.write(
      LogRecord(
        .info, "send.will_retry",
        [("reason", error.label), ("attempt", "\(outboxAttempts)"), ("delay", "\(delay)")]))
    pausedByNetwork = error.isNetworkFailure
    let clock = context.clock
    let pause = context.spawn { try? await clock.sleep(for: delay) }
    self.pause = pause
    await pause.value
    self.pause = nil
    pausedByNetwork = false
  }

  /// Posts one row with its client message ID and saves the answer.
  private func post(_ message: MessageRecord) async -> PostOutcome {
    await context.metrics.recordSendAttempt()
    defer { context.spawn { await self.reportOutboxSize() } }
    let postedID =
      context.knownBugs.contains(.retryWithNewID) ? context.ids.next() : message.clientID
    let body = PostItem(clientMessageId: postedID.rawValue, text: message.text)
    do {
      let dto = try await context.api.postMessage(body, in: message.conversationID)
      guard var record = MessageRecord(dto), record.clientID == postedID else {
        context.log.write(LogRecord(.error, "send.unreadable_reply"))
        return .temporary(.malformedReply("post"))
      }
      record.clientID = message.clientID
      await context.metrics.recordAccepted()
      // Accepted but not saved (a full disk, or another row holds its sequence): the row is
      // still sending; retrying later with the same ID gets the same message back.
      guard let saved = await saveReceived([record], in: message.conversationID),
        saved.clashes == 0
      else {
        return .temporary(.malformedReply("the accepted message could not be saved"))
      }
      context.log.write(
        LogRecord(.info, "send.accepted", [("sequence", "\(record.sequence ?? 0)")]))
      return .accepted
    } catch .signedOut {
      return .signedOut
    } catch let error
      where error.isTemporary || context.knownBugs.contains(.stopOutboxAtFirst4xx)
    {
      await context.metrics.recordTemporaryFailure()
      return .temporary(error)
    } catch {
      await context.metrics.recordRejected()
      context.log.write(LogRecord(.warning, "send.rejected", [("reason", error.label)]))
      do {
        try await store.markFailed(message.clientID, sender: context.me, reason: reason(error))
      } catch {
        context.log.write(LogRecord(.error, "send.mark_failed", [("error", "\(error)")]))
      }
      savedAt[message.clientID] = nil
      return .rejected
    }
  }

  private func reason(_ error: RequestFailure) -> String {
    if case .rejected(_, _, let message) = error { return message }
    return error.label
  }

  func reportOutboxSize() async {
    if let size = try? await store.outboxCount() {
      await context.metrics.recordOutboxSize(size)
    }
  }
}

/// How one post ended.
enum PostOutcome: Sendable {
  case accepted, rejected, signedOut
  case temporary(RequestFailure)
}
