import Foundation
import Support

// The ids both sides speak (API.md), and their rules, once: the device's engine and the
// reference server check an id with the same type, so they never disagree on what one is.

/// A user's id: 1–64 characters of `[a-z0-9._-]` (API.md, Auth).
public struct UserID: RawRepresentable, Hashable, Comparable, Sendable, Codable,
  CustomStringConvertible
{
  public let rawValue: String

  /// Nil when `rawValue` is not a valid user id.
  public init?(rawValue: String) {
    guard Identifiers.isValidName(rawValue) else { return nil }
    self.rawValue = rawValue
  }

  /// For literals known to be valid (tests, previews). Traps on an invalid id.
  public init(_ rawValue: String) {
    guard let id = UserID(rawValue: rawValue) else { preconditionFailure("invalid user id") }
    self = id
  }

  public var description: String { rawValue }
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A device's id: the same alphabet as a user id.
public struct DeviceID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
  public let rawValue: String

  public init?(rawValue: String) {
    guard Identifiers.isValidName(rawValue) else { return nil }
    self.rawValue = rawValue
  }

  public init(_ rawValue: String) {
    guard let id = DeviceID(rawValue: rawValue) else { preconditionFailure("invalid device id") }
    self = id
  }

  public var description: String { rawValue }
}

/// A conversation's id, chosen by the server. Opaque: any non-empty string without `/`, at most
/// 128 characters, so it is safe in a URL path.
public struct ConversationID: RawRepresentable, Hashable, Comparable, Sendable, Codable,
  CustomStringConvertible
{
  public let rawValue: String

  public init?(rawValue: String) {
    guard Identifiers.all(of: rawValue, count: 1...128, Identifiers.isURLSafe) else { return nil }
    self.rawValue = rawValue
  }

  public init(_ rawValue: String) {
    guard let id = ConversationID(rawValue: rawValue) else {
      preconditionFailure("invalid conversation id")
    }
    self = id
  }

  /// A conversation id as the reference server issues them: a UUID, kept in lowercase (any
  /// case is read). Nil for anything else, which the server answers with a 400.
  public init?(serverIssued text: String) {
    guard let canonical = UUIDText.canonical(text) else { return nil }
    self.rawValue = canonical
  }

  public var description: String { rawValue }
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The client message ID: a UUID the sending device chooses before it sends, kept for every
/// retry, so the server recognises a retry and keeps one message (seed 000 §8).
///
/// Stored and sent in lowercase. Version 7 IDs sort by creation time, which is how messages not
/// yet accepted by the server are ordered among themselves.
public struct MessageID: RawRepresentable, Hashable, Comparable, Sendable, Codable,
  CustomStringConvertible
{
  public let rawValue: String

  /// Nil unless `rawValue` is a UUID in its 8-4-4-4-12 hex form (any case).
  public init?(rawValue: String) {
    guard let canonical = UUIDText.canonical(rawValue) else { return nil }
    self.rawValue = canonical
  }

  public init(_ uuid: UUID) {
    rawValue = uuid.uuidString.lowercased()
  }

  public var uuid: UUID { UUID(uuidString: rawValue)! }

  public var description: String { rawValue }
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

enum Identifiers {
  static func isValidName(_ value: String) -> Bool {
    all(of: value, count: 1...64) { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
        true
      default: false
      }
    }
  }

  static func isURLSafe(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "-"), UInt8(ascii: "~"):
      true
    default: false
    }
  }

  /// Whether `value` has a length in `count` and every byte passes `test`. The alphabets are
  /// ASCII, so bytes are characters; one loop over the contiguous UTF-8 (every row read from a
  /// database names its conversation and sender: walking unicode scalars showed in B2's profile).
  static func all(of value: String, count: ClosedRange<Int>, _ test: (UInt8) -> Bool) -> Bool {
    var value = value
    return value.withUTF8 { bytes in count.contains(bytes.count) && bytes.allSatisfy(test) }
  }
}
