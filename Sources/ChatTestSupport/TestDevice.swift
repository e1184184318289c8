import ChatData
import ChatDomain
import ChatServer
import Foundation

/// One device in a `TestWorld`.
public struct TestDevice: Sendable {
  public let engine: ChatEngine
  public let network: TestNetwork
  public let environment: ChatEngine.Environment

  public var messages: any MessageRepository { engine.messages }
  public var list: any ConversationListRepository { engine.conversationList }
  public var typing: any TypingIndicators { engine.typing }
}
