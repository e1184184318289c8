import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation

/// A message row in the store. Both source repositories map the server's format to this, and
/// the composite maps it to `Message`.
package struct MessageRecord: Sendable, Equatable {
  enum State: Int, Sendable {
    /// Waiting in the outbox or being posted: no sequence yet.
    case sending = 0
    /// Accepted: has a sequence.
    case sent = 1
    /// Rejected with a 4xx; waits for a tapped retry.
    case failed = 2
    /// Waited in the outbox past the stale threshold before its first post: held for the
    /// user's choice (send now: a retry; discard: a delete).
    case stale = 3
  }

  package var conversationID: ConversationID
  package var clientID: MessageID
  package var senderID: UserID
  var serverID: String?
  var text: String
  package var sequence: Int?
  var sentAt: Date
  var state: State
  var failure: String?
  /// What the row is in the conversation's log (API.md Part 2 "Items"): only messages show.
  var kind: Kind = .message
  /// An edit's or delete's target: the client ID of the sender's message it changes.
  var target: MessageID? = nil
  /// A message's last edit (the server's time of the edit item).
  var editedAt: Date? = nil
  /// A message deleted for everyone: a tombstone with no text.
  var isDeleted = false
  /// When I edited it on this device, while the server has not yet confirmed the edit.
  var pendingEditedAt: Date? = nil
  /// A members item's changes.
  var added: [UserID] = []
  var removed: [UserID] = []
  /// A title item's new title.
  var title: String? = nil
  /// A message's photo or document as the API describes it (my unsent one's key is empty until
  /// its upload completes); nil for none, and once deleted. Behind a reference (`Indirect`):
  /// it was a third of the record, and a conversation screen moves fifty records per change.
  @Indirect var media: Media? = nil
  /// The full bytes' file name in the media folder, when this device holds them.
  var mediaFile: String? = nil
  /// My unsent message's upload: the bytes the store confirmed; nil once it completed (or for
  /// none).
  var uploadedBytes: Int? = nil
  /// A message's reactions as shown (API.md Part 3), in the order each emoji first came.
  var reactions: [ReactionGroup] = []
  /// A message from the server: its reactions as served (nil from a server without them).
  var servedReactions: [ReactionGroup]? = nil
  /// A reaction item's emoji, and whether it (or a pin item) took it back.
  var emoji: String? = nil
  var reactionRemove = false
  /// A reply: the client message ID of the message it answers.
  var replyTo: MessageID? = nil
  /// A reply's quote: as the server served it, until a snapshot rebuilds it from the answered
  /// message when this device holds it (its current state here); nil for my unsent reply.
  @Indirect var quote: ServedQuote? = nil
  /// The members its current text names (the server's `mentions`).
  var mentions: [UserID] = []
  /// A forward (API.md Part 3): what my unsent one copies ("conversationId/clientMessageId",
  /// `forwardSource`), '' once the server serves it as forwarded; nil for any other message.
  var forwardOf: String? = nil

  /// The message my unsent forward copies.
  var forwardSource: ForwardOf? {
    guard let forwardOf, let slash = forwardOf.firstIndex(of: "/") else { return nil }
    return ForwardOf(
      conversationId: String(forwardOf[..<slash]),
      clientMessageId: String(forwardOf[forwardOf.index(after: slash)...]))
  }

  /// A reply's quote as served: the quote, or hidden (the reader cannot see the target).
  enum ServedQuote: Sendable, Equatable {
    case shown(Quote)
    case hidden
  }

  /// The kinds of API.md's items, as the store spells them. A reaction or a pin is kept (the
  /// log stays dense, so no gap is seen where it is) and not shown as a row; a reaction's
  /// effect shows on its message, a pin's in the conversation's pinned bar.
  enum Kind: String, Sendable {
    case message, edit, delete, members, title, reaction, pin
  }
}

extension MessageRecord {
  /// A message the server accepted (`sent`, with its sequence), as a catch-up saves it (its
  /// reactions and the quote of what it answers as served): for the package's tools that fill
  /// a store below the engine (`chat-bench`).
  package init(
    sentIn conversationID: ConversationID, clientID: MessageID, senderID: UserID,
    serverID: String, text: String, sequence: Int, sentAt: Date,
    reactions: [ReactionGroup] = [], replyTo: MessageID? = nil, quote: Quote? = nil
  ) {
    self.init(
      conversationID: conversationID, clientID: clientID, senderID: senderID, serverID: serverID,
      text: text, sequence: sequence, sentAt: sentAt, state: .sent, failure: nil)
    servedReactions = reactions
    self.replyTo = replyTo
    self.quote = quote.map { .shown($0) }
  }
}

/// A conversation row: what the list shows, plus this device's sync position.
package struct ConversationRecord: Sendable, Equatable {
  package var id: ConversationID
  var title: String
  var memberIDs: [UserID]
  var createdAt: Date
  /// The server's newest sequence, as last heard (list, sync or a message).
  var lastSequence: Int
  /// My own read number: raised by my reading here, or by the server (my other devices).
  var readUpTo: Int
  /// The read number the server has confirmed; below `readUpTo` means a POST /read is owed.
  var readAcknowledged: Int
  /// Every message in `historyFloor...syncedUpTo` is held. Nil: never fetched.
  var syncedUpTo: Int?
  package var historyFloor: Int?
  package var participation: Participation = .member
  /// The sequences I can see: all, for a member since the start.
  package var visible = VisibleSequences.all
  /// Muted until then (`Date.distantFuture`: for good); nil when not muted.
  var mutedUntil: Date? = nil
  /// The server's count of my unread messages that mention me, as of its last answer (the
  /// list counts them here when it holds every unread message: `ConversationListQuery`).
  var unreadMentions = 0
  /// Muted, a message that mentions me still pushes (API.md's `mutedMentions` "push").
  var mentionsPushThroughMute = true
  /// Its pins as shown (`MessagesTable.foldPins`), newest first, deleted messages not yet
  /// left out.
  var pinned: [PinnedEntry] = []
  /// My draft here (`ConversationsTable+Drafts.swift`); nil when none, or cleared.
  var draft: MessageDraft? = nil
}

/// The sequences a member can see: inclusive ranges, oldest first, the last open while still a
/// member (API.md's `visible`). Stored as `first:last` pairs, `last` empty when open.
package struct VisibleSequences: Sendable, Equatable {
  package struct Range: Sendable, Equatable {
    package var first: Int
    package var last: Int?

    func contains(_ sequence: Int) -> Bool {
      sequence >= first && last.map { sequence <= $0 } ?? true
    }
  }

  package var ranges: [Range]

  static let all = VisibleSequences(ranges: [Range(first: 1, last: nil)])

  init(ranges: [Range]) {
    self.ranges = ranges.sorted { $0.first < $1.first }
  }

  /// Parses the stored form; anything unreadable counts as all (the server filters anyway).
  init(stored: String) {
    let ranges = stored.split(separator: ",").compactMap { part -> Range? in
      let bounds = part.split(separator: ":", omittingEmptySubsequences: false)
      guard let first = bounds.first.flatMap({ Int($0) }) else { return nil }
      return Range(first: first, last: bounds.count > 1 ? Int(bounds[1]) : nil)
    }
    self.init(ranges: ranges.isEmpty ? Self.all.ranges : ranges)
  }

  var stored: String {
    ranges.map { "\($0.first):\($0.last.map(String.init) ?? "")" }.joined(separator: ",")
  }

  func contains(_ sequence: Int) -> Bool {
    ranges.contains { $0.contains(sequence) }
  }

  /// The first visible sequence above `sequence`, nil when none is (I left for good).
  func firstVisible(after sequence: Int) -> Int? {
    if contains(sequence + 1) { return sequence + 1 }
    return ranges.first { $0.first > sequence }?.first
  }

  /// Closed at `sequence` (I was removed there).
  func closed(at sequence: Int) -> VisibleSequences {
    var ranges = ranges
    if let last = ranges.indices.last, ranges[last].last == nil { ranges[last].last = sequence }
    return VisibleSequences(ranges: ranges)
  }

  /// Opened at `sequence` (I was added there), unless already open.
  func opened(at sequence: Int) -> VisibleSequences {
    guard ranges.last?.last != nil || ranges.isEmpty else { return self }
    return VisibleSequences(ranges: ranges + [Range(first: sequence, last: nil)])
  }
}

/// The caller's ticks in one conversation: the lowest numbers over the other members.
struct ReceiptsRecord: Sendable, Equatable {
  var deliveredUpTo: Int
  var readUpTo: Int
}

/// One member's receipt numbers.
struct MemberReceiptRecord: Sendable, Equatable {
  var userID: UserID
  var deliveredUpTo: Int
  var readUpTo: Int
}

/// Everything a conversation screen needs, read in one go.
package struct ConversationSnapshot: Sendable, Equatable {
  var conversation: ConversationRecord?
  /// Sorted: by sequence, then the unsent ones in client-ID order.
  package var messages: [MessageRecord]
  /// Nil when no receipt numbers were ever loaded.
  var receipts: ReceiptsRecord?
  /// Whether held rows (with a sequence) lie below the window.
  var hasOlderHeld: Bool
  /// The numbers of the other current members, for "read by N of M" in groups.
  var memberReceipts: [MemberReceiptRecord] = []
  /// When each member last joined (the members item that added it), for the members this
  /// device saw being added; the others have been in since before anything it holds.
  var joinedAt: [UserID: Int] = [:]
  /// Where the rows' media files are.
  var mediaFolder: MediaFolder? = nil
  /// Whose messages show as "Blocked message" (`BlockedTable.hidden`).
  var blocked: Set<UserID> = []
}

/// One row of the conversation list.
struct ConversationListRow: Sendable, Equatable {
  var conversation: ConversationRecord
  var lastMessage: MessageRecord?
  var receipts: ReceiptsRecord?
  var unreadCount: Int
  var unreadMentions = 0
  var pins: [Pin] = []
  /// Whose messages show as "Blocked message" (`BlockedTable.hidden`).
  var blocked: Set<UserID> = []
}

/// The signed-in session: who this device is and its tokens.
package struct SessionRecord: Sendable, Equatable {
  var userID: UserID
  var deviceID: DeviceID
  var accessToken: String
  var refreshToken: String
  var expiresAt: Date

  package init(
    userID: UserID, deviceID: DeviceID, accessToken: String, refreshToken: String,
    expiresAt: Date
  ) {
    self.userID = userID
    self.deviceID = deviceID
    self.accessToken = accessToken
    self.refreshToken = refreshToken
    self.expiresAt = expiresAt
  }
}

/// A search match.
package struct SearchResultRecord: Sendable, Equatable {
  var message: MessageRecord
  var conversationTitle: String
  /// The snippet with matches between `SearchMarker.open` and `SearchMarker.close`.
  var markedSnippet: String
}

/// What a committed write changed, for observers.
struct StoreChange: Sendable, Equatable {
  /// Conversations whose messages, receipts or row changed.
  var conversations: Set<ConversationID>
}

/// An optional value kept behind a reference: a large, mostly nil field is one pointer wide in
/// its struct, so moving the struct moves less (memory moved showed in B2's profile). Nil
/// allocates nothing.
@propertyWrapper
struct Indirect<Wrapped: Sendable & Equatable>: Sendable, Equatable {
  private final class Box: Sendable {
    let value: Wrapped
    init(_ value: Wrapped) { self.value = value }
  }

  private var box: Box?

  init(wrappedValue: Wrapped?) {
    box = wrappedValue.map(Box.init)
  }

  var wrappedValue: Wrapped? {
    get { box?.value }
    set { box = newValue.map(Box.init) }
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.box === rhs.box || lhs.box?.value == rhs.box?.value
  }
}
