import ChatData
import ChatDomain
import ChatIdentifiers

/// One conversation row a device's database holds, as the simulation's checker reads it: where
/// the user stands in it and which sequences it may see, to compare with the server's word.
///
/// `package`, not `public`: only targets of this package see it, and no app depends on it
/// (this module is not a product).
package struct HeldConversation: Sendable, Equatable {
  package let id: ConversationID
  package let participation: Participation
  /// The visible ranges, inclusive, oldest first; `last` nil while still a member.
  package let visible: [(first: Int, last: Int?)]
  /// Where its history on this device begins (pruned below it, or never paged back past it;
  /// paging back asks the server); nil: never fetched.
  package let historyFloor: Int?

  package init(
    id: ConversationID, participation: Participation, visible: [(first: Int, last: Int?)],
    historyFloor: Int? = nil
  ) {
    self.id = id
    self.participation = participation
    self.visible = visible
    self.historyFloor = historyFloor
  }

  package static func == (a: HeldConversation, b: HeldConversation) -> Bool {
    a.id == b.id && a.participation == b.participation && a.historyFloor == b.historyFloor
      && a.visible.elementsEqual(b.visible) { $0.first == $1.first && $0.last == $1.last }
  }
}

extension ChatEngine {
  /// Every conversation this device holds, in id order.
  package func heldConversations() async throws -> [HeldConversation] {
    try await store.conversations().sorted { $0.id < $1.id }.map {
      HeldConversation(
        id: $0.id, participation: $0.participation,
        visible: $0.visible.ranges.map { ($0.first, $0.last) }, historyFloor: $0.historyFloor)
    }
  }
}
