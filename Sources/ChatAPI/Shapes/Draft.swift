/// A user's draft in a conversation (API.md Part 3, "Drafts, on every device of the user"):
/// the conversation item's `draft`, and the server's draft in a 409. There is none until the
/// first save; a cleared draft keeps its version with `text` "" and `replyTo` null.
public struct Draft: Codable, Sendable, Equatable {
  public var text: String
  /// The client message ID of the message the draft answers.
  public var replyTo: String?
  public var version: Int
  public var updatedAt: String

  public init(text: String, replyTo: String?, version: Int, updatedAt: String) {
    self.text = text
    self.replyTo = replyTo
    self.version = version
    self.updatedAt = updatedAt
  }

  /// Whether it holds nothing (cleared, or never typed in).
  public var isEmpty: Bool { text.isEmpty && replyTo == nil }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(text, forKey: .text)
    try container.encode(replyTo, forKey: .replyTo)
    try container.encode(version, forKey: .version)
    try container.encode(updatedAt, forKey: .updatedAt)
  }
}

/// `PUT /v1/conversations/{id}/draft`: the whole draft, saved on the version the device last
/// had (`baseVersion`, 0 before the first save).
public struct SaveDraft: Codable, Sendable, Equatable {
  public var text: String
  public var replyTo: String?
  public var baseVersion: Int

  public init(text: String, replyTo: String?, baseVersion: Int) {
    self.text = text
    self.replyTo = replyTo
    self.baseVersion = baseVersion
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(text, forKey: .text)
    try container.encode(replyTo, forKey: .replyTo)
    try container.encode(baseVersion, forKey: .baseVersion)
  }
}

/// The `200` answer to a draft save.
public struct DraftSaved: Codable, Sendable, Equatable {
  public var version: Int
  public var updatedAt: String

  public init(version: Int, updatedAt: String) {
    self.version = version
    self.updatedAt = updatedAt
  }
}

/// The `409` answer to a draft save on a version that is not the server's: the server's draft.
/// Its `error` is every error's body (`conflict`).
public struct DraftConflict: Codable, Sendable, Equatable {
  public var error: ErrorResponse.Body
  public var draft: Draft

  public init(message: String, draft: Draft) {
    error = ErrorResponse.Body(code: ErrorCode.conflict.rawValue, message: message)
    self.draft = draft
  }
}
