import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import Support

/// Store record → domain model: the second step of the two-step mapping (seed 000 §6.4).
enum RecordMapping {
  /// A message with its two states: the send state from the row, the receipt state from the
  /// numbers. Receipt states are about my own sent messages; others' are `unknown`.
  /// A conversation's messages as the screen shows them, with "read by N of M" on my own in a
  /// group (more than one other member): of the current members who were in when it was
  /// written (one added later never saw it, though its numbers pass it).
  static func messages(_ snapshot: ConversationSnapshot, me: UserID) -> [Message] {
    let others = (snapshot.conversation?.memberIDs ?? []).filter { $0 != me }
    let numbers = snapshot.memberReceipts.filter { $0.userID != me }
    return snapshot.messages.map { record in
      var group: GroupReceipt?
      if others.count > 1, record.senderID == me, let sequence = record.sequence,
        record.kind == .message
      {
        let wasIn = { (user: UserID) in (snapshot.joinedAt[user] ?? 0) < sequence }
        let present = numbers.filter { wasIn($0.userID) }
        group = GroupReceipt(
          readBy: present.filter { $0.readUpTo >= sequence }.map(\.userID),
          deliveredTo: present.filter { max($0.deliveredUpTo, $0.readUpTo) >= sequence }
            .map(\.userID),
          memberCount: others.filter(wasIn).count)
      }
      return message(
        record, receipts: snapshot.receipts, me: me, group: group,
        mediaFolder: snapshot.mediaFolder, blocked: snapshot.blocked)
    }
  }

  static func message(
    _ record: MessageRecord, receipts: ReceiptsRecord?, me: UserID, group: GroupReceipt? = nil,
    mediaFolder: MediaFolder? = nil, blocked: Set<UserID> = []
  ) -> Message {
    let send: SendState =
      switch record.state {
      case .sending: .sending
      case .sent: .sent
      case .failed: .failed(reason: record.failure ?? "refused by the server")
      case .stale: .stale
      }
    return Message(
      id: record.clientID, conversationID: record.conversationID, senderID: record.senderID,
      text: record.text, sentAt: record.sentAt, sequence: record.sequence, send: send,
      receipt: receipt(for: record, receipts: receipts, me: me),
      editedAt: record.pendingEditedAt ?? record.editedAt, isDeleted: record.isDeleted,
      event: event(of: record), group: group,
      media: record.isDeleted
        ? nil : record.media.map { media(of: record, $0, folder: mediaFolder) },
      reactions: record.reactions.map { group in
        Reaction(
          emoji: group.emoji, count: group.userIds.count,
          includesMe: group.userIds.contains(me.rawValue))
      }, replyTo: record.isDeleted ? nil : record.replyTo.map { quoted($0, record.quote, blocked) },
      mentions: record.isDeleted ? [] : record.mentions,
      isFromBlockedSender: record.kind == .message && blocked.contains(record.senderID),
      isForwarded: record.forwardOf != nil && !record.isDeleted)
  }

  /// A reply's quote as the screen shows it; no quote when the reader cannot see the target
  /// (or nothing of it is known here, which does not happen: a reply is sent to a held one),
  /// nor when someone I blocked wrote it, in a group (`blocked`): a quote would show what
  /// "Blocked message" hides.
  static func quoted(
    _ target: MessageID, _ quote: MessageRecord.ServedQuote?, _ blocked: Set<UserID> = []
  ) -> QuotedMessage {
    guard case .shown(let quote)? = quote, let sender = UserID(rawValue: quote.senderId),
      !blocked.contains(sender)
    else {
      return QuotedMessage(id: target, quote: nil)
    }
    return QuotedMessage(
      id: target,
      quote: QuotedMessage.Quote(
        senderID: sender, sequence: quote.sequence > 0 ? quote.sequence : nil, text: quote.text,
        mediaKind: quote.mediaKind.map { $0 == .image ? .image : .file },
        isDeleted: quote.deleted))
  }

  /// A message's media as the screen shows it: the thumbnail decoded, the bytes' path when
  /// held, my upload's progress while it runs.
  static func media(of record: MessageRecord, _ media: Media, folder: MediaFolder?)
    -> MessageMedia
  {
    MessageMedia(
      kind: media.kind == .image ? .image : .file, contentType: media.contentType,
      byteCount: media.byteCount, width: media.width, height: media.height,
      fileName: media.fileName,
      thumbnail: media.thumbnail.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) },
      localPath: record.mediaFile.flatMap { name in folder.map { $0.file(name) } },
      uploadedBytes: record.state == .sending ? record.uploadedBytes : nil)
  }

  /// A members or title item as the change it shows; nil for a message.
  static func event(of record: MessageRecord) -> ConversationEvent? {
    switch record.kind {
    case .members: .membersChanged(added: record.added, removed: record.removed)
    case .title: .titleChanged(record.title ?? "")
    case .message, .edit, .delete, .reaction, .pin: nil
    }
  }

  /// No numbers ever loaded → unknown (never "not delivered", which may be false); up to
  /// `readUpTo` → read; up to `deliveredUpTo` → delivered; else not delivered.
  static func receipt(for record: MessageRecord, receipts: ReceiptsRecord?, me: UserID)
    -> ReceiptState
  {
    guard record.senderID == me, let sequence = record.sequence, let receipts else {
      return .unknown
    }
    if sequence <= receipts.readUpTo { return .read }
    if sequence <= receipts.deliveredUpTo { return .delivered }
    return .notDelivered
  }

  static func summary(_ row: ConversationListRow, me: UserID) -> ConversationSummary {
    ConversationSummary(
      id: row.conversation.id, title: row.conversation.title,
      memberIDs: row.conversation.memberIDs,
      lastMessage: row.lastMessage.map {
        message($0, receipts: row.receipts, me: me, blocked: row.blocked)
      },
      unreadCount: row.unreadCount,
      lastActivity: row.lastMessage?.sentAt ?? row.conversation.createdAt,
      participation: row.conversation.participation, mutedUntil: row.conversation.mutedUntil,
      unreadMentions: row.unreadMentions,
      mentionsPushThroughMute: row.conversation.mentionsPushThroughMute,
      readUpTo: row.conversation.readUpTo, pinned: row.pins, draft: row.conversation.draft)
  }

  static func hit(_ record: SearchResultRecord, me: UserID) -> SearchHit {
    SearchHit(
      messageID: record.message.clientID, conversationID: record.message.conversationID,
      conversationTitle: record.conversationTitle, senderID: record.message.senderID,
      sentAt: record.message.sentAt, sequence: record.message.sequence,
      snippet: snippet(record.markedSnippet))
  }

  /// A hit of the server's search (its snippet marks the match with `[` `]`); nil for an item
  /// whose identifiers or time are not what API.md promises.
  static func hit(_ result: SearchResult, title: String) -> SearchHit? {
    guard let id = MessageID(rawValue: result.item.clientMessageId),
      let conversation = ConversationID(rawValue: result.conversationId),
      let sender = UserID(rawValue: result.item.senderId),
      let sentAt = Timestamp(rfc3339: result.item.sentAt)?.date
    else { return nil }
    let marked = result.snippet.replacingOccurrences(of: "[", with: SearchMarker.open)
      .replacingOccurrences(of: "]", with: SearchMarker.close)
    return SearchHit(
      messageID: id, conversationID: conversation, conversationTitle: title,
      senderID: sender, sentAt: sentAt, sequence: result.item.sequence,
      snippet: snippet(marked))
  }

  /// Splits a snippet marked with `SearchMarker` into plain and matched parts.
  static func snippet(_ marked: String) -> Snippet {
    var parts: [Snippet.Part] = []
    var current = ""
    var inMatch = false
    for character in marked {
      let text = String(character)
      if text == SearchMarker.open || text == SearchMarker.close {
        if !current.isEmpty { parts.append(Snippet.Part(text: current, isMatch: inMatch)) }
        current = ""
        inMatch = text == SearchMarker.open
      } else {
        current.append(character)
      }
    }
    if !current.isEmpty { parts.append(Snippet.Part(text: current, isMatch: inMatch)) }
    return Snippet(parts: parts)
  }
}
