import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatWorld
import Foundation
import Hashing
import Support

// Retention and stale sends during the run: each device's upkeep prunes what its window no
// longer keeps, and a send held as stale is answered as its user would.

extension Simulation {
  /// Runs the device's upkeep (`maintain`): prunes what its retention window no longer keeps.
  func maintain(_ engine: ChatEngine, on incarnation: Incarnation) async {
    do {
      let report = try await engine.maintain()
      history.pruned += report.prunedItems
      history.trace(
        "op \(incarnation.name) maintain: pruned \(report.prunedItems) in "
          + "\(report.prunedConversations) conversations")
    } catch {
      history.trace("op \(incarnation.name) maintain failed: \(error)")
    }
  }

  /// Follows the outbox as its user sees it, when sends can go stale: each message held there
  /// ("not sent — send now?") gets its user's answer a moment later.
  func watchOutbox(_ device: SimDevice, _ incarnation: Incarnation) {
    guard options.staleAfter != nil, let engine = incarnation.engine else { return }
    let entries = engine.outboxQueue.entries()
    incarnation.outboxTask = incarnation.executor.spawn { [self] in
      for await list in entries {
        incarnation.held = Dictionary(
          list.filter { $0.state == .notSent }.map { ($0.id, $0.conversationID) },
          uniquingKeysWith: { first, _ in first })
        for id in incarnation.held.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
          checker.held(id, on: device.name)
          guard incarnation.answering.insert(id).inserted else { continue }
          answer(id, on: device, incarnation, engine)
        }
      }
    }
  }

  /// The user answers a held message after a pause: "send now" or "discard", one or the
  /// other drawn from the seed. A discard refused (a conversation the user has left) leaves it
  /// held: the user answers again.
  private func answer(
    _ id: MessageID, on device: SimDevice, _ incarnation: Incarnation, _ engine: ChatEngine
  ) {
    world.schedule(after: workloadRandom.duration(options.profile.thinkTime)) { [self] in
      guard phase == .safety || phase == .liveness, device.current === incarnation else {
        return
      }
      guard let conversation = incarnation.held[id] else {
        incarnation.answering.remove(id)
        return
      }
      let sendNow = workloadRandom.chance(0.5)
      history.trace("op \(incarnation.name) \(sendNow ? "send-now" : "discard") id=\(id)")
      // A discard is a delete the user asked for: one whose post had started goes to the
      // server as a delete item.
      let change =
        sendNow
        ? nil
        : history.invokeChange(
          History.Change(
            device: incarnation.name, user: device.user, conversation: conversation, target: id,
            text: nil))
      if sendNow {
        checker.sendNowTapped(id, on: device.name)
      } else {
        checker.discardTapped(id, on: device.name)
      }
      incarnation.executor.spawn { [self] in
        if sendNow {
          await engine.outboxQueue.retry(id)
          incarnation.answering.remove(id)
          return
        }
        do {
          try await engine.outboxQueue.discard(id)
          if let change { history.changeReturned(change) }
          checker.discardReturned(id, on: device.name)
          history.trace("op \(incarnation.name) discarded id=\(id)")
          incarnation.answering.remove(id)
        } catch {
          history.trace("op \(incarnation.name) discard refused id=\(id): \(error)")
          answer(id, on: device, incarnation, engine)
        }
      }
    }
  }
}
