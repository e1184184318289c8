/// One emoji on a message and who put it there, in the order they did (API.md Part 3,
/// "Reactions": a message item's `reactions`).
public struct ReactionGroup: Codable, Sendable, Equatable {
  public var emoji: String
  public var userIds: [String]

  public init(emoji: String, userIds: [String]) {
    self.emoji = emoji
    self.userIds = userIds
  }

  /// A message's `reactions` read from JSON by hand: a device reads them with every row of a
  /// conversation's window, and the `Codable` path (`APICoding.decode`) cost as much as the
  /// rest of the row in B2's profile. The same result; nil for anything but an array of
  /// objects with a string `emoji` and an array of strings `userIds`.
  public static func list(from json: JSON) -> [ReactionGroup]? {
    guard case .array(let items) = json else { return nil }
    var groups: [ReactionGroup] = []
    groups.reserveCapacity(items.count)
    for item in items {
      guard case .object(let object) = item, case .string(let emoji)? = object["emoji"],
        case .array(let users)? = object["userIds"]
      else { return nil }
      var ids: [String] = []
      ids.reserveCapacity(users.count)
      for user in users {
        guard case .string(let id) = user else { return nil }
        ids.append(id)
      }
      groups.append(ReactionGroup(emoji: emoji, userIds: ids))
    }
    return groups
  }
}

/// A message's reactions in their current state, and the rules that change them, the same on
/// the server (which refuses with 422) and on a device (which applies reaction items, and drops
/// a queued one that would change nothing).
public struct Reactions: Sendable, Equatable {
  /// In the order each emoji first came; an emoji whose last user took it back goes, and
  /// comes back at the end.
  public private(set) var groups: [ReactionGroup]

  public init(_ groups: [ReactionGroup] = []) { self.groups = groups }

  /// Distinct emoji one message may carry.
  public static let maxDistinctEmoji = 20
  /// UTF-8 bytes of one emoji.
  public static let maxEmojiBytes = 32

  /// Why a reaction is refused (422 on the server).
  public enum Refusal: Error, Sendable, Equatable {
    /// Adding one the user already has, or removing one they have not: the state is already
    /// the one asked for.
    case changesNothing
    /// A 21st distinct emoji.
    case tooManyEmoji
  }

  /// Whether `text` is one emoji as API.md has it: one extended grapheme cluster (one
  /// `Character`) of at most 32 UTF-8 bytes, with at least one scalar of Unicode's `Emoji`
  /// property.
  public static func isEmoji(_ text: String) -> Bool {
    guard text.utf8.count <= maxEmojiBytes, text.count == 1 else { return false }
    return text.unicodeScalars.contains { $0.properties.isEmoji }
  }

  /// `user` adds `emoji`, or takes it back when `remove`.
  public mutating func apply(_ emoji: String, by user: String, remove: Bool) throws(Refusal) {
    let index = groups.firstIndex { $0.emoji.utf8.elementsEqual(emoji.utf8) }
    if remove {
      guard let index, let at = groups[index].userIds.firstIndex(of: user) else {
        throw .changesNothing
      }
      groups[index].userIds.remove(at: at)
      if groups[index].userIds.isEmpty { groups.remove(at: index) }
      return
    }
    guard let index else {
      guard groups.count < Self.maxDistinctEmoji else { throw .tooManyEmoji }
      groups.append(ReactionGroup(emoji: emoji, userIds: [user]))
      return
    }
    guard !groups[index].userIds.contains(user) else { throw .changesNothing }
    groups[index].userIds.append(user)
  }
}
