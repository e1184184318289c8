import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import Support

// Wire shape → store record. A shape this client cannot read (an invalid ID, a bad date, a
// sequence below 1) maps to nil and is dropped by the caller with a log line, never saved
// half-read.

extension MessageRecord {
  init?(_ item: Item) {
    guard let conversation = ConversationID(rawValue: item.conversationId),
      let clientID = MessageID(rawValue: item.clientMessageId),
      let sender = UserID(rawValue: item.senderId),
      let sentAt = Timestamp(rfc3339: item.sentAt),
      item.sequence >= 1
    else { return nil }
    let target = item.target.flatMap(MessageID.init(rawValue:))
    let kind = Kind(rawValue: item.effectiveKind.rawValue) ?? .message
    if [.edit, .delete, .reaction, .pin].contains(kind) && target == nil { return nil }
    var editedAt: Date?
    if let edited = item.editedAt {
      guard let time = Timestamp(rfc3339: edited) else { return nil }
      editedAt = time.date
    }
    self.init(
      conversationID: conversation, clientID: clientID, senderID: sender, serverID: item.id,
      text: item.text, sequence: item.sequence, sentAt: sentAt.date, state: .sent, failure: nil,
      kind: kind, target: target, editedAt: editedAt, isDeleted: item.deleted ?? false,
      added: (item.added ?? []).compactMap(UserID.init(rawValue:)),
      removed: (item.removed ?? []).compactMap(UserID.init(rawValue:)), title: item.title,
      media: kind == .message ? item.media : nil)
    servedReactions = kind == .message ? item.reactions : nil
    forwardOf = kind == .message && item.forwarded == true ? "" : nil
    emoji = kind == .reaction ? item.emoji : nil
    reactionRemove = [.reaction, .pin].contains(kind) && item.remove == true
    if kind == .message, let reply = item.replyTo {
      guard let answered = MessageID(rawValue: reply.clientMessageId) else { return nil }
      replyTo = answered
      quote = reply.quote.map { .shown($0) } ?? .hidden
    }
    if kind == .message, let named = item.mentions {
      mentions = named.compactMap(UserID.init(rawValue:))
      guard mentions.count == named.count else { return nil }
    }
    if kind == .members
      && added.count + removed.count
        != (item.added?.count ?? 0) + (item.removed?.count ?? 0)
    {
      return nil
    }
  }
}

extension ServerConversation {
  init?(_ item: ConversationItem) {
    guard let id = ConversationID(rawValue: item.id),
      let createdAt = Timestamp(rfc3339: item.createdAt),
      item.lastSequence >= 0, item.readUpTo >= 0
    else { return nil }
    let members = item.memberIds.compactMap { UserID(rawValue: $0) }
    guard members.count == item.memberIds.count else { return nil }
    self.init(
      id: id, title: item.title, memberIDs: members, createdAt: createdAt.date,
      lastSequence: item.lastSequence, readUpTo: item.readUpTo,
      participation: item.membership.flatMap { Participation(rawValue: $0.rawValue) },
      visible: item.visible.map { ranges in
        VisibleSequences(ranges: ranges.map { .init(first: $0.first, last: $0.last) })
      },
      knowsMute: item.membership != nil,
      mutedUntil: item.mutedUntil.flatMap {
        $0 == Mute.forever ? Date.distantFuture : Timestamp(rfc3339: $0)?.date
      }, unreadMentions: item.unreadMentions.map { max(0, $0) },
      mentionsPushThroughMute: item.mutedMentions.map { $0 == .push },
      pinned: item.pinned.map { list in
        list.compactMap { pin in
          MessageID(rawValue: pin.clientMessageId).map {
            PinnedEntry(id: $0, sequence: pin.sequence)
          }
        }
      })
    if let draft = item.draft {
      let replyTo = draft.replyTo.flatMap(MessageID.init(rawValue:))
      guard draft.replyTo == nil || replyTo != nil, draft.version >= 0 else { return nil }
      self.draft = DraftRecord(
        conversation: id, text: draft.text, replyTo: replyTo, version: draft.version)
    }
  }
}

extension MemberReceiptRecord {
  init?(_ receipts: MemberReceipts) {
    guard let user = UserID(rawValue: receipts.userId) else { return nil }
    self.init(userID: user, deliveredUpTo: receipts.deliveredUpTo, readUpTo: receipts.readUpTo)
  }
}
