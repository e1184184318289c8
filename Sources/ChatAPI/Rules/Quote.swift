/// What a reply shows of the message it answers (API.md Part 3, "Replies"): the target's
/// **current** state, so an edit shows the new text and a delete `deleted: true` and no text.
/// Built the same way by the server (for each reader: nil when the reader cannot see the
/// target) and by a device that holds the target (until the server's quote replaces it).
public struct Quote: Codable, Sendable, Equatable {
  public var senderId: String
  public var sequence: Int
  /// The first `maxScalars` Unicode scalars of the current text; "" once deleted.
  public var text: String
  public var mediaKind: MediaKind?
  public var deleted: Bool

  /// Unicode scalars of the text a quote carries.
  public static let maxScalars = 100

  public init(senderId: String, sequence: Int, text: String, mediaKind: MediaKind?, deleted: Bool) {
    self.senderId = senderId
    self.sequence = sequence
    self.text = text
    self.mediaKind = mediaKind
    self.deleted = deleted
  }

  /// The quote of `message`, an item of kind `message` in its current state.
  public init(of message: Item) {
    self.init(
      senderId: message.senderId, sequence: message.sequence, currentText: message.text,
      mediaKind: message.media?.kind, deleted: message.deleted ?? false)
  }

  /// The quote of a message whose current text is `currentText`: its first `maxScalars`
  /// scalars, nothing of it (text or media) once deleted.
  public init(
    senderId: String, sequence: Int, currentText: String, mediaKind: MediaKind?, deleted: Bool
  ) {
    self.init(
      senderId: senderId, sequence: sequence, text: deleted ? "" : Self.cut(currentText),
      mediaKind: deleted ? nil : mediaKind, deleted: deleted)
  }

  /// The first `maxScalars` scalars of `text`: the text itself when it has no more bytes than
  /// that (a scalar is at least one), else one slice (a device builds a quote for every reply
  /// of a window it opens; appending scalar by scalar showed in B2's profile).
  static func cut(_ text: String) -> String {
    guard text.utf8.count > maxScalars else { return text }
    let scalars = text.unicodeScalars
    let end =
      scalars.index(scalars.startIndex, offsetBy: maxScalars, limitedBy: scalars.endIndex)
      ?? scalars.endIndex
    return String(scalars[..<end])
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(senderId, forKey: .senderId)
    try container.encode(sequence, forKey: .sequence)
    try container.encode(text, forKey: .text)
    if let mediaKind {
      try container.encode(mediaKind, forKey: .mediaKind)
    } else {
      try container.encodeNil(forKey: .mediaKind)
    }
    try container.encode(deleted, forKey: .deleted)
  }

  enum CodingKeys: String, CodingKey {
    case senderId, sequence, text, mediaKind, deleted
  }
}
