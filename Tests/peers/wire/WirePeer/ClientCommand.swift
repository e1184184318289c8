import ArgumentParsing
import Foundation
import Wire

/// Runs our client once: connect, send, print what arrives, print how it closed.
struct ClientCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "client",
    abstract: "Our client, once: connect, send, print what arrives and how it closed.",
    discussion: """
      Prints "open", "rejected STATUS", "error …", "message TEXT" and "closed CODE MS".
      """)

  @Option(help: ArgumentHelp("Where to connect: ws://host:port/path.", valueName: "URL"))
  var url: String
  @Option(help: ArgumentHelp("A request header, 'Name: value'.", valueName: "HEADER"))
  var header: [String] = []
  @Option(help: ArgumentHelp("A text message to send once open.", valueName: "TEXT"))
  var send: [String] = []
  @Option(help: ArgumentHelp("Close after this many messages.", valueName: "N")) var expect: Int?
  @Option(
    help: ArgumentHelp(
      "Milliseconds to wait, after the last expected message, before closing.",
      valueName: "N"))
  var lingerMs: Int?
  @Flag(help: "Send every message received back.") var echo = false
  @Option(help: ArgumentHelp("Milliseconds allowed to connect.", valueName: "N"))
  var connectTimeoutMs = 5000
  @Option(
    help: ArgumentHelp(
      "For wss://: trust only the CA certificates in this PEM file (default: the system's).",
      valueName: "FILE"))
  var caFile: String?
  @OptionGroup var webSocket: WebSocketOptions

  func run() async {
    var tls: TLSContext?
    if let caFile {
      do {
        tls = try TLSContext(configuration: .makeClientConfiguration(trustRoots: .file(caFile)))
      } catch {
        emit("error \(tlsCaseName(error)) \(error)")
        return
      }
    }
    var headers = HTTPHeaders()
    for line in header {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers.add(
        name: String(line[..<colon]),
        value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    let started = ContinuousClock.now
    let socket: WebSocket
    do {
      socket = try await WebSocketClient.connect(
        to: url, headers: headers, configuration: webSocket.configuration,
        connectTimeout: .milliseconds(connectTimeoutMs), tls: tls)
    } catch .handshakeRejected(let status, _) {
      emit("rejected \(status)")
      return
    } catch .tls(let error) {
      emit("error \(tlsCaseName(error)) \(error)")
      return
    } catch {
      emit("error \(error)")
      return
    }
    emit("open")
    for text in send {
      try? socket.send(text: text)
    }
    var received = 0
    for await text in socket.messages {
      received += 1
      emit("message \(text)")
      if echo { try? socket.send(text: text) }
      if let expect, received >= expect {
        if let linger = lingerMs {
          try? await Task.sleep(for: .milliseconds(linger))
        }
        socket.close()
      }
    }
    await socket.waitUntilClosed()
    let elapsed = ContinuousClock.now - started
    emit(
      "closed \(socket.closeCode?.rawValue ?? 0) \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)"
    )
  }
}

/// The echo client of the conformance suite: for each case, connect to `/case/N`, echo every
/// message back (text and binary), and report how the case closed.
struct ClientCasesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "client-cases",
    abstract: "The conformance suite's echo client: connects to /case/1 … /case/N in turn.")

  @Option(help: ArgumentHelp("The suite's server: ws://host:port.", valueName: "URL"))
  var url: String
  @Option(help: ArgumentHelp("How many cases.", valueName: "N")) var cases: Int
  @OptionGroup var webSocket: WebSocketOptions

  func run() async {
    let base = url
    let count = cases
    var configuration = webSocket.configuration
    configuration.binaryMessageHandler = { socket, bytes in try? socket.send(binary: bytes) }
    for number in 1...max(1, count) {
      do {
        let socket = try await WebSocketClient.connect(
          to: "\(base)/case/\(number)", configuration: configuration,
          connectTimeout: .seconds(5))
        for await text in socket.messages {
          do {
            try socket.send(text: text)
          } catch {
            emit("case \(number) could not echo: \(error)")
          }
        }
        await socket.waitUntilClosed()
        emit("case \(number) closed \(socket.closeCode?.rawValue ?? 0)")
      } catch {
        emit("case \(number) error \(error)")
      }
    }
    emit("done")
  }
}
