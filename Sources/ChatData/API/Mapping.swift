import ChatDomain
import Foundation

// DTO → store record. A DTO this client cannot read (an invalid ID, a bad date, a sequence
// below 1) maps to nil and is dropped by the caller with a log line, never saved half-read.

extension MessageRecord {
  init?(_ dto: MessageDTO) {
    guard let conversation = ConversationID(rawValue: dto.conversationId),
      let clientID = MessageID(rawValue: dto.clientMessageId),
      let sender = UserID(rawValue: dto.senderId),
      let sentAt = APIDate.parse(dto.sentAt),
      dto.sequence >= 1
    else { return nil }
    self.init(
      conversationID: conversation, clientID: clientID, senderID: sender, serverID: dto.id,
      text: dto.text, sequence: dto.sequence, sentAt: sentAt, state: .sent, failure: nil)
  }
}

extension ServerConversation {
  init?(_ dto: ConversationDTO) {
    guard let id = ConversationID(rawValue: dto.id),
      let createdAt = APIDate.parse(dto.createdAt),
      dto.lastSequence >= 0, dto.readUpTo >= 0
    else { return nil }
    let members = dto.memberIds.compactMap { UserID(rawValue: $0) }
    guard members.count == dto.memberIds.count else { return nil }
    self.init(
      id: id, title: dto.title, memberIDs: members, createdAt: createdAt,
      lastSequence: dto.lastSequence, readUpTo: dto.readUpTo)
  }
}

extension MemberReceiptRecord {
  init?(_ dto: MemberReceiptDTO) {
    guard let user = UserID(rawValue: dto.userId) else { return nil }
    self.init(userID: user, deliveredUpTo: dto.deliveredUpTo, readUpTo: dto.readUpTo)
  }
}
