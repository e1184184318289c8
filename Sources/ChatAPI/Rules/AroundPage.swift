/// Which items a page `around` a sequence holds (API.md Part 3, "opening at a message"), the
/// same on the server (`?around=`) and on a device opening at a message from its database:
/// the target (or the nearest visible item below it), then alternately one older and one
/// newer, and at either end of the log the page fills from the other side.
public struct AroundPage: Sendable, Equatable {
  /// Ascending.
  public var sequences: [Int]
  /// Visible items lie below the page's first, or above its last.
  public var hasMoreBefore: Bool
  public var hasMoreAfter: Bool

  /// - Parameters:
  ///   - older: visible sequences at or below the target, descending (the first is the
  ///     target, or the nearest below it); `limit` of them are enough to decide, one more
  ///     tells `hasMoreBefore`.
  ///   - newer: visible sequences above the target, ascending; the same.
  public static func pick(older: [Int], newer: [Int], limit: Int) -> AroundPage {
    // The target first (the first older one), then older, newer, older, … while both sides
    // have items.
    var takeOlder = older.isEmpty || limit < 1 ? 0 : 1
    var takeNewer = 0
    var turnIsOlder = true
    while takeOlder + takeNewer < limit {
      let olderLeft = takeOlder < older.count
      let newerLeft = takeNewer < newer.count
      guard olderLeft || newerLeft else { break }
      if (turnIsOlder && olderLeft) || !newerLeft {
        takeOlder += 1
      } else {
        takeNewer += 1
      }
      turnIsOlder.toggle()
    }
    return AroundPage(
      sequences: older.prefix(takeOlder).reversed() + newer.prefix(takeNewer),
      hasMoreBefore: older.count > takeOlder, hasMoreAfter: newer.count > takeNewer)
  }
}
