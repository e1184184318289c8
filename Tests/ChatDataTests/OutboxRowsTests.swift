import ChatDomain
import Foundation
import SQLite
import Testing

@testable import ChatData

/// The outbox's rows (`OutboxRows`): my unsent rows, queued oldest first, held when they
/// waited too long, failed alone when refused, requeued at the back, shown with their attempts.
@Suite struct OutboxRowsTests {
  /// What every send and every flush asks of the outbox is read from its partial index, never
  /// by walking every message (which made each send cost milliseconds in a large database).
  @Test func theOutboxQueriesReadTheOutboxIndexAndScanNoTable() async throws {
    let f = try await StoreFixture.make()
    let queries = [
      "SELECT \(OutboxRows.nextPosition)", OutboxRows.queuedConversations,
      "SELECT count(*) FROM messages WHERE \(OutboxRows.queued)",
    ]
    for query in queries {
      let plan = try await f.store.read { db in
        try db.query("EXPLAIN QUERY PLAN " + query) { $0.string(3) }
      }
      #expect(plan.contains { $0.contains("messages_outbox") }, "\(query): \(plan)")
      #expect(!plan.contains { $0.hasPrefix("SCAN messages") }, "\(query): \(plan)")
    }
  }

  @Test func aPendingRowForAConversationNotOnThisDeviceIsNotSaved() async throws {
    let f = try await StoreFixture.make()
    #expect(try await f.store.insertPending(f.pending(StoreFixture.id(1)), queuedAt: 0) == nil)
    #expect(try await f.store.unsent().isEmpty)
    try await f.addConversation()
    #expect(try await f.store.insertPending(f.pending(StoreFixture.id(1)), queuedAt: 0) == .member)
  }

  @Test func theOutboxIsOldestFirstAndARequeuedMessageGoesToTheBack() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let (a, b, c) = (StoreFixture.id(1), StoreFixture.id(2), StoreFixture.id(3))
    for id in [a, b, c] { try await f.store.insertPending(f.pending(id), queuedAt: 0) }
    try await f.store.markFailed(a, sender: f.me, reason: "invalid")
    #expect(try await f.store.unsent().map(\.clientID) == [b, c])
    #expect(try await f.store.requeue(a, sender: f.me, queuedAt: 0))
    #expect(try await f.store.unsent().map(\.clientID) == [b, c, a])
    #expect(try await f.store.requeue(b, sender: f.me, queuedAt: 0) == false)
  }

  /// "Send now" on a held photo whose post had started keeps its completed upload: that post
  /// may have reached the server (its reply lost), and posted again with a new upload's key it
  /// differs from what the server holds, a 409 that showed a sent message as failed
  /// (simulation seeds 208 and 753 of `--retain-messages 5 --stale-after 45`). Any other
  /// retry starts the upload again: the upload may be what the server refused, or swept.
  @Test func sendNowKeepsTheUploadOfAHeldPhotoWhosePostStartedOnly() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let (posted, refused, neverPosted) = (
      StoreFixture.id(1), StoreFixture.id(2), StoreFixture.id(3)
    )
    for (id, queuedAt) in [(posted, 0.0), (refused, 5.0), (neverPosted, 50.0)] {
      try await f.pendingPhoto(id, queuedAt: queuedAt)
    }
    #expect(try await f.store.startPosting(in: f.chat)?.record.clientID == posted)
    // It waited too long before its second post: held
    #expect(try await f.store.startPosting(in: f.chat, staleBefore: 1)?.record.clientID == refused)
    try await f.store.markFailed(refused, sender: f.me, reason: "refused")
    #expect(try await f.store.startPosting(in: f.chat, staleBefore: 100) == nil)
    for id in [posted, refused, neverPosted] {
      #expect(try await f.store.requeue(id, sender: f.me, queuedAt: 200))
    }

    let kept = try #require(try await f.store.upload(of: posted, in: f.chat, sender: f.me))
    #expect(kept.done && kept.key == "key-\(posted)" && kept.media.key == "key-\(posted)")
    for id in [refused, neverPosted] {
      let again = try #require(try await f.store.upload(of: id, in: f.chat, sender: f.me))
      #expect(!again.done && again.key == nil && again.media.key == "", "\(id)")
    }
  }

  /// A message that waited in the outbox past the stale threshold is held for the user, not
  /// posted, and the outbox goes on with the next row.
  @Test func aMessageThatWaitedTooLongIsHeldAndTheNextGoes() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let (old, recent) = (StoreFixture.id(1), StoreFixture.id(2))
    try await f.store.insertPending(f.pending(old), queuedAt: 10)
    try await f.store.insertPending(f.pending(recent), queuedAt: 500)
    let next = try #require(try await f.store.startPosting(in: f.chat, staleBefore: 100))
    #expect(next.record.clientID == recent && next.isFirst)
    #expect(try await f.store.unsent().map(\.clientID) == [recent])
    let rows = try await f.store.outboxRows(sender: f.me)
    #expect(rows.map(\.record.clientID) == [recent, old])
    #expect(rows.map(\.record.state) == [.sending, .stale])
  }

  /// A post that ended without an answer counts as an attempt, shown with its reason and when
  /// the next is due; a first post that never reached the server counts as never posted, so
  /// an edit changes the row in place again.
  @Test func aFailedAttemptIsShownAndAnUnreachedPostCountsAsNeverPosted() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let id = StoreFixture.id(1)
    try await f.store.insertPending(f.pending(id), queuedAt: 0)
    _ = try #require(try await f.store.startPosting(in: f.chat))
    let due = Date(timeIntervalSince1970: 7_000)
    try await f.store.recordFailedAttempt(id, sender: f.me, reason: "offline", nextAttemptAt: due)
    let row = try #require(try await f.store.outboxRows(sender: f.me).first)
    #expect(row.attempts == 1 && row.lastError == "offline" && row.nextAttemptAt == due)
    #expect(row.conversationTitle == "Hiking")
    try await f.store.forgetPostStart(id, sender: f.me)
    let edit = try await f.store.editOwn(
      id, in: f.chat, sender: f.me, text: "later", id: StoreFixture.id(2), at: Date())
    #expect(edit == .inPlace)
    #expect(try await f.store.outboxCount() == 1)
  }
}
