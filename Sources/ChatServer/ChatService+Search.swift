import ChatAPI
import SQLite

extension ChatService {
  /// The longest `q` of `GET /v1/search` (API.md: 1–200 characters).
  static let maxSearchLength = 200

  /// `GET /v1/search?q=&limit=&before=`: the messages the caller can see that hold every term
  /// of `q`, newest first (`ServerStore.search`). 400 without `q` or with a cursor this server
  /// did not give; 422 for a `q` empty, too long or with nothing to search (API.md: 1–200
  /// characters, a range), or a `limit` outside 1…200.
  func search(_ request: APIRequest, for caller: String) async throws
    -> APIResponse
  {
    guard let text = request.query["q"] else {
      throw ServiceError.badRequest("q is required: the words to search for.")
    }
    guard !text.isEmpty else { throw ServiceError.invalid("q must hold 1 to 200 characters.") }
    let terms: FullTextQuery
    do {
      terms = try FullTextQuery(text, maximumLength: Self.maxSearchLength)
    } catch {
      throw ServiceError.invalid("q: \(error.description).")
    }
    let limit = try QueryParameters.integer("limit", in: request.query) ?? 20
    guard APILimits.pageSizes.contains(limit) else {
      throw ServiceError.invalid("limit must be between 1 and 200.")
    }
    let page = try await store.search(
      terms, visibleTo: caller, before: request.query["before"], limit: limit)
    return .json(200, SearchResponse(items: page.hits, nextCursor: page.nextCursor))
  }
}
