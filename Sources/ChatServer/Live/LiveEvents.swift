/// The server → client frames of `/v1/live`, exactly API.md's shapes.
enum LiveEvents {
  static func message(_ message: StoredMessage) -> String {
    JSON.object([
      "type": .string("message"),
      "conversationId": .string(message.conversationId),
      "message": message.json,
    ]).text
  }

  static func receipt(in conversation: String, _ receipt: MemberReceipt) -> String {
    JSON.object([
      "type": .string("receipt"),
      "conversationId": .string(conversation),
      "userId": .string(receipt.userId),
      "deliveredUpTo": .integer(receipt.deliveredUpTo),
      "readUpTo": .integer(receipt.readUpTo),
    ]).text
  }

  static func typing(in conversation: String, by user: String) -> String {
    JSON.object([
      "type": .string("typing"),
      "conversationId": .string(conversation),
      "userId": .string(user),
    ]).text
  }

  static func conversation(_ item: ConversationItem) -> String {
    JSON.object(["type": .string("conversation"), "conversation": item.json]).text
  }
}
