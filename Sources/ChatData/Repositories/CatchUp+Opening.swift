import ChatAPI
import ChatDomain
import ChatIdentifiers

/// Opening a conversation at a message (API.md Part 3, "opening at a message"): the pages a
/// window centred on a message needs, saved by ID like any page
/// (`CompositeMessageRepository.open(at:in:)`).
extension CatchUp {
  /// Makes sure the device holds the items around `sequence` (opening a conversation at a
  /// quote, a search hit, the first unread): when it does not hold that item, one `?around=`
  /// page, saved by ID like any page. Rows below the history floor are kept as they are (the
  /// floor moves only with `loadOlder`'s contiguous pages). Returns false when the item was held.
  func fetch(around sequence: Int, in conversation: ConversationID) async throws(ChatError)
    -> Bool
  {
    let held: Bool
    do {
      held = try await context.store.holds(sequence, in: conversation)
    } catch {
      throw ChatError(error)
    }
    guard !held else { return false }
    do {
      let page = try await context.api.messages(
        in: conversation, around: sequence, limit: Self.pageSize)
      _ = await save(page.items, in: conversation)
    } catch {
      throw error.chatError
    }
    return true
  }

  /// One page older than `sequence`, saved by ID (scrolling up from a window opened around a
  /// message below the history floor). Returns whether the server has more before it.
  func fetch(before sequence: Int, in conversation: ConversationID) async throws(ChatError)
    -> Bool
  {
    do {
      let page = try await context.api.messages(
        in: conversation, before: sequence, limit: Self.pageSize)
      _ = await save(page.items, in: conversation)
      return page.hasMore
    } catch {
      throw error.chatError
    }
  }
}
