import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import Dispatch
import Foundation

/// `chat listen`: stays connected, sends what waits, and prints every change as one JSON line
/// until SIGINT or SIGTERM.
struct ListenCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "listen",
    abstract: "Stay connected and print each change as a JSON line (until Ctrl-C).",
    discussion: #"""
      Prints {"type":"connection"|"conversation"|"message", …} lines. The connection's state is
      idle, connecting, connected, waitingForNetwork, polling (updates by long poll: the
      network refused the WebSocket three times while HTTP worked; the socket is tried again
      every few minutes) or signedOut.
      """#)

  @Flag(
    name: .customLong("long-poll"),
    help: ArgumentHelp(
      "Get updates by long poll (GET /v1/sync?wait=) only, never the WebSocket: for a network "
        + "known to block WebSockets."))
  var longPoll = false

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine(liveUpdates: longPoll ? .longPollOnly : .automatic) {
      engine throws(CommandFailure) in
      let output = Output(json: true)
      let printer = ChangePrinter(engine: engine, output: output)
      await engine.start()
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await Signals.waitForTermination() }
        group.addTask {
          for await state in engine.connectionStates() {
            output.json(ConnectionJSON(state: "\(state)"))
          }
        }
        group.addTask {
          await printer.printAll()
          for await conversations in engine.changedConversations() {
            await printer.print(conversations)
          }
        }
        // The first to end is the signal: stop the others.
        await group.next()
        group.cancelAll()
      }
      await engine.stop()
      return .success
    }
  }

  struct ConnectionJSON: Encodable {
    var type = "connection"
    let state: String
  }
}

/// Prints what changed since the last look, per conversation and per message.
actor ChangePrinter {
  let engine: ChatEngine
  let output: Output
  private var conversations: [ConversationID: ConversationJSON] = [:]
  /// The newest 200 of each conversation as last printed: memory stays bounded however long
  /// it listens.
  private var messages: [ConversationID: [MessageID: MessageJSON]] = [:]

  init(engine: ChatEngine, output: Output) {
    self.engine = engine
    self.output = output
  }

  func printAll() async {
    let all = (try? await engine.localConversations()) ?? []
    await print(Set(all.map(\.id)))
  }

  func print(_ changed: Set<ConversationID>) async {
    let list = (try? await engine.localConversations()) ?? []
    for summary in list where changed.contains(summary.id) {
      let shape = ConversationJSON(summary)
      if conversations[summary.id] != shape {
        conversations[summary.id] = shape
        output.json(Typed(type: "conversation", conversation: shape))
      }
      let previous = messages[summary.id] ?? [:]
      var current: [MessageID: MessageJSON] = [:]
      for message in (try? await engine.localMessages(in: summary.id, limit: 200)) ?? [] {
        let shape = MessageJSON(message)
        current[message.id] = shape
        if previous[message.id] != shape {
          output.json(TypedMessage(type: "message", message: shape))
        }
      }
      messages[summary.id] = current
    }
  }

  struct Typed: Encodable {
    let type: String
    let conversation: ConversationJSON
  }

  struct TypedMessage: Encodable {
    let type: String
    let message: MessageJSON
  }
}

/// SIGINT and SIGTERM as an async event.
enum Signals {
  /// Returns when the process is asked to stop (or the task is cancelled).
  static func waitForTermination() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
    var sources: [any DispatchSourceSignal] = []
    for signalNumber in [SIGINT, SIGTERM] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler { continuation.yield(signalNumber) }
      source.resume()
      sources.append(source)
    }
    for await _ in stream { break }
    for source in sources { source.cancel() }
    _ = sources
  }
}
