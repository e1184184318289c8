import ArgumentParsing
import ChatData
import ChatDomain
import ChatPresentation
import Foundation

/// The demo without a terminal: a short session printed as it happens, showing the ticks move,
/// a send while offline, and its delivery when the network returns.
struct DemoScript {
  let world: DemoWorld
  let output: Output
  let conditions: NetworkConditions

  func run() async -> ExitCode {
    let alice = world.alice
    await alice.start()
    output.line("alice is signed in; bob and carol are bots that read and answer.")
    output.line("")
    guard
      await watch(
        "alice → bob: \"hello bob\"", send: "hello bob", until: { $0.receipt == .read })
    else { return .failure }
    output.line("")
    output.line("Going offline (the same switch as Ctrl-N on the screen).")
    conditions.condition = .offline
    guard
      await watch(
        "alice → bob: \"sent from a tunnel\"", send: "sent from a tunnel",
        until: { $0.send == .sending },
        then: {
          output.line("  back online")
          conditions.condition = .normal
        }, finally: { $0.receipt == .read })
    else { return .failure }
    output.line("")
    let messages = (try? await alice.localMessages(in: world.direct)) ?? []
    output.line("The conversation with bob, in the server's order:")
    for message in messages {
      let sequence = message.sequence.map { "\($0)" } ?? "-"
      let reactions = message.reactions.map { "\($0.emoji) \($0.count)" }.joined(separator: " ")
      output.line(
        "  \(sequence)  \(message.senderID): \(message.text)"
          + (reactions.isEmpty ? "" : "  [\(reactions)]"))
    }
    output.line("")
    await showMedia()
    await alice.stop()
    return .success
  }

  /// The group's photo and document: the thumbnail came with the message; the document's
  /// bytes come on demand, straight from the object store, checked against its sha256.
  private func showMedia() async {
    let alice = world.alice
    _ = try? await alice.sync()
    let messages = (try? await alice.localMessages(in: world.group)) ?? []
    output.line("In Sunday hike, photos and documents:")
    for message in messages {
      guard let media = message.media else { continue }
      let row = MediaRow(media)
      let thumbnail = media.thumbnail.map { ", thumbnail \(ByteCount.text($0.count)) inline" } ?? ""
      output.line("  \(message.senderID): \(row.label)\(thumbnail) · \"\(message.text)\"")
      guard media.kind == .file,
        let path = try? await alice.media.download(message.id, in: world.group, progress: nil)
      else { continue }
      let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
      output.line("    downloaded on demand: \(ByteCount.text(size)), sha256 checked")
    }
  }

  /// Sends `text` and prints each state of its bubble until `until` holds (then runs `then`
  /// and waits for `finally`). Gives up after 20 seconds.
  private func watch(
    _ title: String, send text: String, until: @escaping @Sendable (Message) -> Bool,
    then: (@Sendable () -> Void)? = nil, finally: (@Sendable (Message) -> Bool)? = nil
  ) async -> Bool {
    output.line(title)
    let stream = world.alice.messages.messages(in: world.direct)
    guard let id = try? await world.alice.messages.send(text, in: world.direct) else {
      return false
    }
    let output = output
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        var last: String?
        var waitingForFinally = false
        for await messages in stream {
          guard let message = messages.first(where: { $0.id == id }) else { continue }
          let ticks = Ticks(send: message.send, receipt: message.receipt)
          let line = "  \(Self.describe(ticks))"
          if line != last {
            output.line(line)
            last = line
          }
          if !waitingForFinally, until(message) {
            guard let then, finally != nil else { return true }
            then()
            waitingForFinally = true
          } else if waitingForFinally, let finally, finally(message) {
            return true
          }
        }
        return false
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(20))
        return false
      }
      let result = await group.next() ?? false
      group.cancelAll()
      if !result { output.error("the demo timed out waiting for the server") }
      return result
    }
  }

  static func describe(_ ticks: Ticks) -> String {
    switch ticks {
    case .clock: "◷  sending (saved on the device)"
    case .failed: "!  failed"
    case .notSent: "!  not sent: it waited too long"
    case .dimmed: "✓  sent"
    case .one: "✓  sent, not delivered yet"
    case .two: "✓✓ delivered"
    case .read: "✓✓ read"
    }
  }
}
