import Foundation

// The server's formats (API.md). They never leave the data layer: each source repository maps
// them to store records, and the composite maps records to `Message`.

struct MessageDTO: Codable, Sendable, Equatable {
  var id: String
  var clientMessageId: String
  var conversationId: String
  var senderId: String
  var text: String
  var sequence: Int
  var sentAt: String
}

struct MessagePageDTO: Codable, Sendable {
  var items: [MessageDTO]
  var hasMore: Bool
}

struct PostMessageDTO: Codable, Sendable {
  var clientMessageId: String
  var text: String
}

struct ConversationDTO: Codable, Sendable, Equatable {
  var id: String
  var title: String
  var memberIds: [String]
  var lastSequence: Int
  var readUpTo: Int
  var lastMessage: MessageDTO?
  var createdAt: String
}

struct ConversationListDTO: Codable, Sendable {
  var items: [ConversationDTO]
}

struct SyncDTO: Codable, Sendable {
  var conversations: [ConversationDTO]
  var cursor: String
}

struct CreateConversationDTO: Codable, Sendable {
  var title: String
  var memberIds: [String]
}

struct MemberReceiptDTO: Codable, Sendable, Equatable {
  var userId: String
  var deliveredUpTo: Int
  var readUpTo: Int
}

struct ReceiptsDTO: Codable, Sendable {
  var deliveredUpTo: Int
  var readUpTo: Int
  var members: [MemberReceiptDTO]
}

struct UpToDTO: Codable, Sendable {
  var upToSequence: Int
}

struct DevLoginDTO: Codable, Sendable {
  var userId: String
  var deviceId: String
}

struct RefreshDTO: Codable, Sendable {
  var refreshToken: String
}

struct TokensDTO: Codable, Sendable {
  var accessToken: String
  var refreshToken: String
  var expiresAt: String
  var userId: String
  var deviceId: String
}

struct ErrorDTO: Codable, Sendable {
  struct Body: Codable, Sendable {
    var code: String
    var message: String
  }
  var error: Body
}
