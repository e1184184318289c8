import ChatAPI
import SQLite

extension ServerStore {
  /// The message a pin item pins or unpins (API.md Part 3, "Pins"): a message of this
  /// conversation that the caller can see and that is not deleted; pinning one that is pinned,
  /// unpinning one that is not, or pinning an 11th: 422. Returns the message's sequence.
  static func pinned(_ new: NewMessage, in db: any StoreDatabase) throws -> Int {
    let (sequence, pinnedAt) = try seenTarget(of: new, reading: "pinned_at", in: db)
    let isPinned = pinnedAt != nil
    if new.remove {
      guard isPinned else { throw StoreError.invalid("The message is not pinned.") }
    } else {
      guard !isPinned else { throw StoreError.invalid("The message is already pinned.") }
      let pins =
        try db.scalarInt(
          """
          SELECT count(*) FROM messages
          WHERE conversation_id = ? AND pinned_at IS NOT NULL
          """, new.conversationId) ?? 0
      guard pins < APILimits.maxPins else {
        throw StoreError.invalid("A conversation has at most \(APILimits.maxPins) pinned messages.")
      }
    }
    return sequence
  }

  /// Pins message `target` by the pin item `sequence`, or unpins it.
  static func storePin(
    of target: Int, by sequence: Int, remove: Bool, in conversation: String,
    _ db: any StoreDatabase
  ) throws {
    try db.run(
      "UPDATE messages SET pinned_at = ? WHERE conversation_id = ? AND sequence = ?",
      remove ? nil : sequence, conversation, target)
  }

  /// The conversation item's `pinned` from the list query's column (`pinnedAt:sequence:id`
  /// elements, comma-separated, in no order; no UUID holds a comma or a colon): the messages
  /// a member with `standing` can see, newest pin first.
  static func pinned(from column: String, seenBy standing: Standing) -> [PinnedMessage] {
    column.split(separator: ",").compactMap { element -> (Int, PinnedMessage)? in
      let parts = element.split(separator: ":", maxSplits: 2)
      guard parts.count == 3, let pinnedAt = Int(parts[0]), let sequence = Int(parts[1]),
        standing.canSee(sequence)
      else { return nil }
      return (pinnedAt, PinnedMessage(clientMessageId: String(parts[2]), sequence: sequence))
    }.sorted { $0.0 > $1.0 }.map(\.1)
  }
}
