import ChatDomain
import ChatIdentifiers
import Foundation

/// The outbox as the user sees it (`OutboxRepository`): the store's unsent rows of mine, re-read
/// on every change; retry and discard go through the messages repository, which owns sending.
struct OutboxEntries: OutboxRepository {
  let context: EngineContext
  let messages: MessagesRepository
  let outbox: Outbox

  func entries() -> AsyncStream<[OutboxEntry]> {
    let context = context
    return context.observe(
      relevant: { _ in true },
      query: {
        await context.readOrLog {
          try await context.store.outboxRows(sender: context.me).map(Self.entry)
        }
      })
  }

  func retry(_ id: MessageID?) async {
    if let id {
      await messages.retry(id)
      return
    }
    let held =
      await context.readOrLog {
        try await context.store.outboxRows(sender: context.me).filter {
          $0.record.state == .failed || $0.record.state == .stale
        }
      } ?? []
    for row in held { await messages.retry(row.record.clientID) }
    await outbox.wake()
  }

  func discard(_ id: MessageID) async throws(ChatError) {
    let row = await context.readOrLog {
      try await context.store.outboxRows(sender: context.me).first { $0.record.clientID == id }
    }
    guard let row = row ?? nil else {
      throw .notFound("message \(id) in the outbox (sent meanwhile, or never here)")
    }
    try await messages.discard(id, in: row.record.conversationID)
  }

  static func entry(_ row: OutboxRow) -> OutboxEntry {
    let record = row.record
    let state: OutboxEntry.State =
      switch record.state {
      case .stale: .notSent
      case .failed: .failed(reason: record.failure ?? "refused by the server")
      case .sending, .sent: .waiting
      }
    let text =
      switch record.kind {
      case .reaction: (record.reactionRemove ? "−" : "") + (record.emoji ?? "")
      case .pin: (record.reactionRemove ? "−" : "") + OutboxEntry.pinMark
      default: record.text
      }
    return OutboxEntry(
      id: record.clientID, conversationID: record.conversationID,
      conversationTitle: row.conversationTitle,
      kind: OutboxEntry.Kind(rawValue: record.kind.rawValue) ?? .message,
      text: text,
      state: state, createdAt: record.sentAt, attempts: row.attempts,
      nextAttempt: row.nextAttemptAt, lastError: row.lastError,
      mediaBytesLeft: row.mediaBytesLeft)
  }
}
