import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

@testable import ChatData

/// A store on a real in-memory SQLite, on its own executor (a thread, ended with the fixture).
final class StoreFixture {
  let executor: ThreadExecutor
  let store: MessageStore
  let me = UserID("alice")
  let bob = UserID("bob")
  let carol = UserID("carol")
  let chat = ConversationID("c1")

  static func make(_ location: Database.Location = .memory, knownBugs: KnownBugs = [])
    async throws -> StoreFixture
  {
    let executor = ThreadExecutor(name: "test.store")
    let store = try await MessageStore.open(location, executor: executor, knownBugs: knownBugs)
    return StoreFixture(store: store, executor: executor)
  }

  private init(store: MessageStore, executor: ThreadExecutor) {
    self.store = store
    self.executor = executor
  }

  deinit {
    executor.shutdown()
  }

  func addConversation(
    _ id: ConversationID? = nil, members: [UserID]? = nil, lastSequence: Int = 0, readUpTo: Int = 0
  ) async throws {
    try await store.saveConversations(
      [
        ServerConversation(
          id: id ?? chat, title: "Hiking", memberIDs: members ?? [me, bob],
          createdAt: Date(timeIntervalSince1970: 1_000), lastSequence: lastSequence,
          readUpTo: readUpTo)
      ], me: me)
  }

  func serverMessage(
    _ sequence: Int, from sender: UserID? = nil, text: String? = nil, id: MessageID? = nil,
    in conversation: ConversationID? = nil
  ) -> MessageRecord {
    MessageRecord(
      conversationID: conversation ?? chat, clientID: id ?? Self.id(sequence),
      senderID: sender ?? bob, serverID: "s\(sequence)", text: text ?? "message \(sequence)",
      sequence: sequence, sentAt: Date(timeIntervalSince1970: 2_000 + Double(sequence)),
      state: .sent, failure: nil)
  }

  func pending(_ id: MessageID, text: String = "on my way") -> MessageRecord {
    MessageRecord(
      conversationID: chat, clientID: id, senderID: me, serverID: nil, text: text, sequence: nil,
      sentAt: Date(timeIntervalSince1970: 5_000), state: .sending, failure: nil)
  }

  /// My unsent photo `id`, its upload completed with key `key-<id>` (the post can go).
  func pendingPhoto(_ id: MessageID, text: String = "on my way", queuedAt: Double = 0)
    async throws
  {
    var photo = pending(id, text: text)
    photo.media = Media(
      key: "", kind: .image, contentType: "image/jpeg", byteCount: 3,
      sha256: String(repeating: "a", count: 64), width: 1, height: 1, thumbnail: "/9j/")
    try await store.insertPending(photo, queuedAt: queuedAt)
    try await store.saveUploadCompleted(id, in: chat, sender: me, key: "key-\(id)")
  }

  /// bob's edit item `sequence` of his message `target`, to `text`.
  func editItem(_ sequence: Int, of target: Int = 1, text: String) -> MessageRecord {
    var edit = serverMessage(sequence, text: text)
    edit.kind = .edit
    edit.target = Self.id(target)
    return edit
  }

  /// bob's delete item `sequence` of his message `target`.
  func deleteItem(_ sequence: Int, of target: Int = 1) -> MessageRecord {
    var delete = serverMessage(sequence, text: "")
    delete.kind = .delete
    delete.target = Self.id(target)
    return delete
  }

  /// A deterministic UUIDv7-shaped ID whose order follows `n`.
  static func id(_ n: Int) -> MessageID {
    MessageID(rawValue: String(format: "01900000-0000-7000-8000-%012x", n))!
  }
}
