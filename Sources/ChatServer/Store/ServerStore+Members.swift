import ChatAPI
import SQLite
import Support

/// Where a user stands in a conversation (API.md Part 2, "Groups that change").
struct Standing: Sendable, Equatable {
  var membership: Membership
  /// Inclusive, oldest first; the last is open while a member.
  var ranges: [VisibleRange]

  /// The newest sequence the user can see, nil while still a member (everything from there).
  var lastVisible: Int? {
    membership == .member ? nil : ranges.last?.last
  }

  func canSee(_ sequence: Int) -> Bool {
    ranges.contains { $0.contains(sequence) }
  }

  /// A SQL condition on `sequence` that holds exactly for what the user can see, with its
  /// values. One range from 1, open (a member since the start), is the common case.
  var visibilityCondition: (sql: String, values: [any SQLBindable]) {
    guard !ranges.isEmpty else { return ("1 = 0", []) }
    var parts: [String] = []
    var values: [any SQLBindable] = []
    for range in ranges {
      if let last = range.last {
        parts.append("sequence BETWEEN ? AND ?")
        values += [range.first, last]
      } else {
        parts.append("sequence >= ?")
        values.append(range.first)
      }
    }
    return ("(" + parts.joined(separator: " OR ") + ")", values)
  }
}

/// A members or title change to store, as the service parsed it.
struct NewChange: Sendable {
  enum Change: Sendable {
    /// Sorted, deduplicated, as requested.
    case members(add: [String], remove: [String])
    case title(String)
  }

  var id: String
  var conversationId: String
  var senderId: String
  var clientMessageId: String
  var clientMessageKey: String
  var change: Change
  var sentAt: Timestamp

  var kind: ItemKind {
    if case .title = change { return .title }
    return .members
  }

  /// The request in one canonical string: a retry repeats it exactly.
  var requestKey: String {
    switch change {
    case .members(let add, let remove):
      "add=" + add.joined(separator: ",") + ";remove=" + remove.joined(separator: ",")
    case .title(let title): "title=" + title
    }
  }
}

/// What storing a change did.
struct ChangeOutcome: Sendable {
  var item: Item
  var isNew: Bool
  /// The members after the change, sorted.
  var memberIds: [String]
  /// Who was added or removed by it (empty for a retry or a title).
  var added: [String]
  var removed: [String]
  /// The conversation as each added member sees it now, in `added`'s order: its `conversation`
  /// event, read in the change's own transaction (no later item can be published first).
  var addedViews: [ConversationItem] = []
}

extension ServerStore {
  /// `user`'s standing in `conversation`; nil when never a member (or no such conversation).
  static func standing(_ db: any StoreDatabase, of conversation: String, user: String) throws
    -> Standing?
  {
    guard
      let membership = try db.query(
        "SELECT membership FROM members WHERE conversation_id = ? AND user_id = ?",
        conversation, user, map: { Membership(rawValue: $0.string(0)) ?? .member }
      ).first
    else { return nil }
    let ranges = try db.query(
      """
      SELECT first_sequence, last_sequence FROM member_ranges
      WHERE conversation_id = ? AND user_id = ? ORDER BY first_sequence
      """, conversation, user
    ) { VisibleRange(first: $0.int(0), last: $0.optionalInt(1)) }
    return Standing(membership: membership, ranges: ranges)
  }

  /// Parses `member_ranges` folded into one column: `first:last` (last empty while open),
  /// comma-separated.
  static func ranges(from folded: String) -> [VisibleRange] {
    folded.split(separator: ",").compactMap { part in
      let bounds = part.split(separator: ":", omittingEmptySubsequences: false)
      guard let first = bounds.first.flatMap({ Int($0) }) else { return nil }
      return VisibleRange(first: first, last: bounds.count > 1 ? Int(bounds[1]) : nil)
    }
    .sorted { $0.first < $1.first }
  }

  /// Who may remove other members: the creator while a member; otherwise the member in the
  /// group longest (the earliest start of a current stay; ties by user id).
  static func rightHolder(_ db: any StoreDatabase, of conversation: String) throws -> String? {
    try db.query(
      """
      SELECT m.user_id FROM members AS m
      JOIN member_ranges AS r ON r.conversation_id = m.conversation_id AND r.user_id = m.user_id
        AND r.last_sequence IS NULL
      JOIN conversations AS c ON c.id = m.conversation_id
      WHERE m.conversation_id = ? AND m.membership = 'member'
      ORDER BY m.user_id IS NOT DISTINCT FROM c.created_by DESC, r.first_sequence, m.user_id LIMIT 1
      """, conversation
    ) { $0.string(0) }.first
  }

  /// Stores a members or title change in one savepoint of a group commit, in API.md's
  /// precedence: 404 never a member; a retry (same key and request: the stored item, 200, also
  /// for a former member whose leaving was the change); 403 a former member, or removing
  /// someone else without the right; 422 a change that changes nothing, a group outside 1–256
  /// members, a title outside 1–200 characters; 409 a key reused with another request.
  /// Then the next sequence, the members' rows and ranges (an added member sees from this
  /// item, a removed one up to it), and the sender's receipt numbers raised to it.
  func change(_ new: NewChange) async throws(StoreError) -> ChangeOutcome {
    try await writing { db in try Self.store(new, in: db) }
  }

  private static func store(_ new: NewChange, in db: any StoreDatabase) throws -> ChangeOutcome {
    let conversation = new.conversationId
    try db.lockConversation(conversation)
    let (members, isMember) = try memberIds(db, of: conversation, formerAllowed: new.senderId)
    let existing = try db.query(
      """
      SELECT \(messageColumns(table: "messages")), request_key FROM messages
      WHERE conversation_id = ? AND sender_id = ? AND client_message_key = ?
      """, conversation, new.senderId, new.clientMessageKey
    ) { row in (message(from: row, at: 0), row.optionalString(itemColumnCount)) }.first
    if let (item, key) = existing, item.kind == new.kind, key == new.requestKey {
      return ChangeOutcome(item: item, isNew: false, memberIds: members, added: [], removed: [])
    }
    // A retry of my leaving is answered above; anything new from a former member is refused.
    guard isMember else { throw StoreError.formerMember }
    var added: [String] = []
    var removed: [String] = []
    switch new.change {
    case .members(let add, let remove):
      if remove.contains(where: { $0 != new.senderId }),
        try rightHolder(db, of: conversation) != new.senderId
      {
        throw StoreError.notAllowed(
          "Only the creator (or, once the creator left, the longest member) removes others.")
      }
      added = add.filter { !members.contains($0) }
      removed = remove.filter { members.contains($0) }
      guard !added.isEmpty || !removed.isEmpty else {
        throw StoreError.invalid("This changes nothing: add members not in, remove members in.")
      }
      let size = members.count + added.count - removed.count
      guard (1...APILimits.maxMembers).contains(size) else {
        throw StoreError.invalid(
          "A conversation holds 1 to \(APILimits.maxMembers) members; this leaves \(size).")
      }
    case .title(let title):
      guard (1...APILimits.maxTitleCharacters).contains(title.count) else {
        throw StoreError.invalid(
          "A title holds 1 to \(APILimits.maxTitleCharacters) characters.")
      }
    }
    if existing != nil {
      throw StoreError.keyReused
    }
    let sequence =
      (try db.scalarInt("SELECT last_sequence FROM conversations WHERE id = ?", conversation)
        ?? 0) + 1
    var title: String?
    if case .title(let newTitle) = new.change { title = newTitle }
    let sentAt = new.sentAt.millisecondsSince1970
    // A title item keeps the title it replaced: a former member sees the title of its time.
    try db.run(
      """
      INSERT INTO messages (conversation_id, sequence, id, sender_id, client_message_id,
                            client_message_key, text, sent_at, kind, added, removed, title,
                            request_key, previous_title)
      VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?,
              CASE WHEN CAST(? AS TEXT) IS NULL THEN NULL
                   ELSE (SELECT title FROM conversations WHERE id = ?) END)
      """, conversation, sequence, new.id, new.senderId, new.clientMessageId,
      new.clientMessageKey, sentAt, new.kind.rawValue, added.joined(separator: ","),
      removed.joined(separator: ","), title, new.requestKey, title, conversation)
    for user in added {
      // Someone added sees from this item on: their numbers start just below it.
      try db.run(
        """
        INSERT INTO members (conversation_id, user_id, delivered_up_to, read_up_to, membership)
        VALUES (?, ?, ?, ?, 'member')
        ON CONFLICT (conversation_id, user_id) DO UPDATE SET membership = 'member',
          delivered_up_to = CASE WHEN members.delivered_up_to > excluded.delivered_up_to
            THEN members.delivered_up_to ELSE excluded.delivered_up_to END,
          read_up_to = CASE WHEN members.read_up_to > excluded.read_up_to
            THEN members.read_up_to ELSE excluded.read_up_to END
        """, conversation, user, sequence - 1, sequence - 1)
      try db.run(
        "INSERT INTO member_ranges (conversation_id, user_id, first_sequence) VALUES (?, ?, ?)",
        conversation, user, sequence)
    }
    for user in removed {
      try db.run(
        "UPDATE members SET membership = ? WHERE conversation_id = ? AND user_id = ?",
        user == new.senderId ? "left" : "removed", conversation, user)
      try db.run(
        """
        UPDATE member_ranges SET last_sequence = ?
        WHERE conversation_id = ? AND user_id = ? AND last_sequence IS NULL
        """, sequence, conversation, user)
    }
    try db.run(
      """
      UPDATE conversations SET last_sequence = ?, \(db.dialect.markChanged),
        title = coalesce(?, title)
      WHERE id = ?
      """, sequence, title, conversation)
    try db.run(
      """
      UPDATE members SET delivered_up_to = ?, read_up_to = ?
      WHERE conversation_id = ? AND user_id = ?
      """, sequence, sequence, conversation, new.senderId)
    let after = Set(members).union(added).subtracting(removed).sorted()
    let item = Item(
      id: new.id, clientMessageId: new.clientMessageId, conversationId: conversation,
      senderId: new.senderId, text: "", sequence: sequence,
      sentAt: Timestamp(millisecondsSince1970: sentAt).rfc3339, kind: new.kind,
      deleted: false, added: added, removed: removed, title: title)
    let views = try added.compactMap { user in
      try conversations(db, of: user, changedAfter: nil, only: conversation).items.first
    }
    return ChangeOutcome(
      item: item, isNew: true, memberIds: after, added: added, removed: removed,
      addedViews: views)
  }
}
