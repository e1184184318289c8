import Foundation
import Wire

/// Runs our client once: connect, send, print what arrives, print how it closed.
struct ClientCommand {
  let options: Options

  func run() async {
    var headers = HTTPHeaders()
    for header in options.strings("--header") {
      guard let colon = header.firstIndex(of: ":") else { continue }
      headers.add(
        name: String(header[..<colon]),
        value: header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    let started = ContinuousClock.now
    let socket: WebSocket
    do {
      socket = try await WebSocketClient.connect(
        to: options.string("--url") ?? "", headers: headers, configuration: options.webSocket,
        connectTimeout: options.milliseconds("--connect-timeout-ms") ?? .seconds(5))
    } catch .handshakeRejected(let status, _) {
      emit("rejected \(status)")
      return
    } catch {
      emit("error \(error)")
      return
    }
    emit("open")
    for text in options.strings("--send") {
      try? socket.send(text: text)
    }
    let expected = options.int("--expect")
    var received = 0
    for await text in socket.messages {
      received += 1
      emit("message \(text)")
      if options.flag("--echo") { try? socket.send(text: text) }
      if let expected, received >= expected {
        if let linger = options.int("--linger-ms") {
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
struct ClientCasesCommand {
  let options: Options

  func run() async {
    let base = options.string("--url") ?? ""
    let count = options.int("--cases") ?? 0
    var configuration = options.webSocket
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
