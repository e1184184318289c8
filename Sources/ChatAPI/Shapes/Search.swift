/// One hit of `GET /v1/search`.
public struct SearchResult: Codable, Sendable, Equatable {
  public var conversationId: String
  public var item: Item
  /// The text around the match, the match in `[` `]`.
  public var snippet: String

  public init(conversationId: String, item: Item, snippet: String) {
    self.conversationId = conversationId
    self.item = item
    self.snippet = snippet
  }
}

/// `GET /v1/search?q=&limit=&before=`: newest first.
public struct SearchResponse: Codable, Sendable, Equatable {
  public var items: [SearchResult]
  /// Pass as `before` for the next page; nil at the end.
  public var nextCursor: String?

  public init(items: [SearchResult], nextCursor: String?) {
    self.items = items
    self.nextCursor = nextCursor
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(items, forKey: .items)
    try container.encode(nextCursor, forKey: .nextCursor)
  }
}
