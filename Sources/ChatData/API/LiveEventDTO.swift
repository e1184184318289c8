import Foundation

/// A live event from `/v1/live`, decoded by its `type`.
enum LiveEventDTO: Sendable, Equatable {
  case message(conversationId: String, message: MessageDTO)
  case receipt(conversationId: String, userId: String, deliveredUpTo: Int, readUpTo: Int)
  case typing(conversationId: String, userId: String)
  case conversation(ConversationDTO)
  /// A type this version does not know: ignored, so the server can add events.
  case unknown(type: String)

  private struct Envelope: Decodable {
    var type: String
    var conversationId: String?
    var message: MessageDTO?
    var userId: String?
    var deliveredUpTo: Int?
    var readUpTo: Int?
    var conversation: ConversationDTO?
  }

  /// Decodes one text frame; nil when it is not a well-formed event.
  static func decode(_ text: String) -> LiveEventDTO? {
    guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(text.utf8)) else {
      return nil
    }
    switch envelope.type {
    case "message":
      guard let conversationId = envelope.conversationId, let message = envelope.message else {
        return nil
      }
      return .message(conversationId: conversationId, message: message)
    case "receipt":
      guard let conversationId = envelope.conversationId, let userId = envelope.userId,
        let delivered = envelope.deliveredUpTo, let read = envelope.readUpTo
      else { return nil }
      return .receipt(
        conversationId: conversationId, userId: userId, deliveredUpTo: delivered, readUpTo: read)
    case "typing":
      guard let conversationId = envelope.conversationId, let userId = envelope.userId else {
        return nil
      }
      return .typing(conversationId: conversationId, userId: userId)
    case "conversation":
      guard let conversation = envelope.conversation else { return nil }
      return .conversation(conversation)
    default:
      return .unknown(type: envelope.type)
    }
  }
}
