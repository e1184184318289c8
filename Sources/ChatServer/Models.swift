import ChatAPI
import Support

// The service's own values around API.md's shapes (`ChatAPI`): what a query asks, which number
// a receipt raises, and every member's numbers before they are seen from one member's side.

/// Every member's numbers in a conversation.
struct ReceiptsSnapshot: Sendable, Equatable {
  var lastSequence: Int
  /// Sorted by user id.
  var members: [MemberReceipts]

  /// `GET …/receipts` for `viewer`: the top-level numbers are the lowest over the other
  /// members (a message is read when everyone else has read it), or `lastSequence` alone.
  func response(for viewer: String) -> ReceiptsResponse {
    let others = members.filter { $0.userId != viewer }
    return ReceiptsResponse(
      deliveredUpTo: others.map(\.deliveredUpTo).min() ?? lastSequence,
      readUpTo: others.map(\.readUpTo).min() ?? lastSequence, members: members)
  }
}

/// Which messages `GET …/messages` asks for, as parsed (ranges not yet checked: API.md puts
/// the membership 404 before the range 422).
struct MessageQuery: Sendable, Equatable {
  var before: Int?
  var after: Int?
  /// Part 3: a page centred on this sequence.
  var around: Int? = nil
  var limit: Int

  /// Throws the 422 of API.md: `limit` outside 1...200, both `before` and `after`, `around`
  /// with either, or a negative sequence.
  func validate() throws(StoreError) {
    guard APILimits.pageSizes.contains(limit) else {
      throw .invalid("limit must be between 1 and 200.")
    }
    if before != nil && after != nil { throw .invalid("Use before or after, not both.") }
    if around != nil && (before != nil || after != nil) {
      throw .invalid("Use around alone, without before or after.")
    }
    if let around, around < 0 { throw .invalid("around must not be negative.") }
    if let before, before < 0 { throw .invalid("before must not be negative.") }
    if let after, after < 0 { throw .invalid("after must not be negative.") }
  }
}

/// Which receipt number a `POST` raises.
enum ReceiptKind: String, Sendable {
  case delivered
  case read
}
