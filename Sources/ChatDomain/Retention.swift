import Foundation

/// How much history this device keeps (seed 003: "keep everything locally vs a window"). Older
/// messages stay on the server: paging back fetches them again, and "Search older messages"
/// finds them there. Unsent messages and unread ones are always kept, and so is each
/// conversation's newest message (its row in the list).
public struct Retention: Hashable, Sendable, CustomStringConvertible {
  /// Messages older than this many days go; nil: no limit by age.
  public var messageDays: Int?
  /// Only this many of each conversation's newest messages stay; nil: no limit by count.
  public var messagesPerConversation: Int?
  /// Downloaded photos and documents older than this many days lose their bytes (the message
  /// and its thumbnail stay; opening it downloads again); nil: kept while the media cache has
  /// room.
  public var mediaDays: Int?

  public init(messageDays: Int? = nil, messagesPerConversation: Int? = nil, mediaDays: Int? = nil) {
    self.messageDays = messageDays
    self.messagesPerConversation = messagesPerConversation
    self.mediaDays = mediaDays
  }

  /// Keep everything: the default.
  public static let everything = Retention()

  /// Whether any message may be pruned.
  public var prunesMessages: Bool { messageDays != nil || messagesPerConversation != nil }

  /// `days=365,messages=5000,media=30`, the parts set; `everything` when none is.
  public var description: String {
    let parts = [
      messageDays.map { "days=\($0)" }, messagesPerConversation.map { "messages=\($0)" },
      mediaDays.map { "media=\($0)" },
    ].compactMap { $0 }
    return parts.isEmpty ? "everything" : parts.joined(separator: ",")
  }

  /// Reads `description`'s form; nil for anything else (each number 1 or more).
  public init?(_ text: String) {
    self.init()
    guard text != "everything" else { return }
    for part in text.split(separator: ",") {
      let pair = part.split(separator: "=", maxSplits: 1)
      guard pair.count == 2, let number = Int(pair[1]), number >= 1 else { return nil }
      switch pair[0] {
      case "days": messageDays = number
      case "messages": messagesPerConversation = number
      case "media": mediaDays = number
      default: return nil
      }
    }
  }
}
