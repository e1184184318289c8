import ChatDomain
import Support

/// The id formats of API.md, and which strings are malformed (a 400) rather than unknown (a
/// 404). The rules are the domain's (`UserID`, `DeviceID`) and `UUIDText`'s, so the client and
/// the server never disagree on what an id is.
enum Identifiers {
  /// User ids: 1–64 characters of `[a-z0-9._-]`.
  static func isValidUserID(_ id: String) -> Bool { UserID(rawValue: id) != nil }

  /// Device ids follow the user id rule.
  static func isValidDeviceID(_ id: String) -> Bool { DeviceID(rawValue: id) != nil }

  /// The lowercase form of a UUID (conversation ids, client message ids), or nil.
  static func canonicalUUID(_ text: String) -> String? { UUIDText.canonical(text) }
}
